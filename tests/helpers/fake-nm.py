#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A stand-in for NetworkManager on a private system bus, for igmpd's integration tests.

It owns org.freedesktop.NetworkManager and serves the part of NetworkManager's D-Bus API that
igmpd reads, with the same object paths, interfaces, property types and signals:

  /org/freedesktop/NetworkManager                    org.freedesktop.NetworkManager
      ActiveConnections ao, Devices ao; PropertiesChanged on change
  /org/freedesktop/NetworkManager/Devices/N          org.freedesktop.NetworkManager.Device
      Interface s, Ifindex u, State u, ActiveConnection o; StateChanged(uuu)
  /org/freedesktop/NetworkManager/ActiveConnection/N org.freedesktop.NetworkManager.Connection.Active
      Id s, Uuid s, Connection o, Devices ao, State u, Vpn b; StateChanged(uu)
  /org/freedesktop/NetworkManager/Settings/N         org.freedesktop.NetworkManager.Settings.Connection
      GetSettings() -> a{sa{sv}} with "connection" (id, uuid, type) and "user" ("data": a{ss});
      Updated() on change

The test drives it through /org/igmpd/FakeNM, interface org.igmpd.FakeNM:
  AddDevice(s ifname, u ifindex) -> o
  AddConnection(s id, a{ss} user_data) -> o
  UpdateConnection(o connection, a{ss} user_data)    (emits Updated, as an edited profile does)
  Activate(o connection, o device, b vpn) -> o active  (emits the signals real activation emits)
  Deactivate(o active)

Usage: fake-nm.py [--address BUS_ADDRESS]   (default: $DBUS_SYSTEM_BUS_ADDRESS)
"""

import argparse
import os
import signal
import sys
import uuid

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NM = "org.freedesktop.NetworkManager"
NM_PATH = "/org/freedesktop/NetworkManager"
IFACE_DEVICE = NM + ".Device"
IFACE_ACTIVE = NM + ".Connection.Active"
IFACE_SETTINGS_CONN = NM + ".Settings.Connection"
PROPS = "org.freedesktop.DBus.Properties"
CONTROL = "org.igmpd.FakeNM"

DEVICE_STATE_DISCONNECTED = 30
DEVICE_STATE_PREPARE = 40
DEVICE_STATE_ACTIVATED = 100
AC_STATE_ACTIVATING = 1
AC_STATE_ACTIVATED = 2
AC_STATE_DEACTIVATED = 4


class PropObject(dbus.service.Object):
    """An object with org.freedesktop.DBus.Properties over self.props[interface]."""

    def __init__(self, bus, path):
        super().__init__(bus, path)
        self.path = path
        self.props = {}

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        try:
            return self.props[interface][name]
        except KeyError:
            raise dbus.exceptions.DBusException("No such property " + name,
                                                name="org.freedesktop.DBus.Error.InvalidArgs")

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return dbus.Dictionary(self.props.get(interface, {}), signature="sv")

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    def set_props(self, interface, **changed):
        self.props.setdefault(interface, {}).update(changed)
        self.PropertiesChanged(interface, dbus.Dictionary(changed, signature="sv"), dbus.Array([], signature="s"))


class Device(PropObject):
    def __init__(self, bus, path, ifname, ifindex):
        super().__init__(bus, path)
        self.props[IFACE_DEVICE] = {
            "Interface": dbus.String(ifname),
            "IpInterface": dbus.String(ifname),
            "Ifindex": dbus.UInt32(ifindex),
            "State": dbus.UInt32(DEVICE_STATE_DISCONNECTED),
            "ActiveConnection": dbus.ObjectPath("/"),
            "Managed": dbus.Boolean(True),
            "Driver": dbus.String("veth"),
        }

    @dbus.service.signal(IFACE_DEVICE, signature="uuu")
    def StateChanged(self, new, old, reason):
        pass

    def set_state(self, state):
        old = self.props[IFACE_DEVICE]["State"]
        self.set_props(IFACE_DEVICE, State=dbus.UInt32(state))
        self.StateChanged(dbus.UInt32(state), old, dbus.UInt32(0))


class Connection(dbus.service.Object):
    def __init__(self, bus, path, conn_id, user_data):
        super().__init__(bus, path)
        self.path = path
        self.id = conn_id
        self.uuid = str(uuid.uuid4())
        self.user_data = dict(user_data)

    @dbus.service.method(IFACE_SETTINGS_CONN, in_signature="", out_signature="a{sa{sv}}")
    def GetSettings(self):
        settings = {
            "connection": dbus.Dictionary({
                "id": dbus.String(self.id),
                "uuid": dbus.String(self.uuid),
                "type": dbus.String("veth"),
            }, signature="sv"),
            "ipv4": dbus.Dictionary({"method": dbus.String("disabled")}, signature="sv"),
        }
        if self.user_data:
            settings["user"] = dbus.Dictionary({
                "data": dbus.Dictionary(self.user_data, signature="ss"),
            }, signature="sv")
        return dbus.Dictionary(settings, signature="sa{sv}")

    @dbus.service.signal(IFACE_SETTINGS_CONN, signature="")
    def Updated(self):
        pass


class Active(PropObject):
    def __init__(self, bus, path, conn, devices, vpn):
        super().__init__(bus, path)
        self.props[IFACE_ACTIVE] = {
            "Id": dbus.String(conn.id),
            "Uuid": dbus.String(conn.uuid),
            "Type": dbus.String("veth"),
            "Connection": dbus.ObjectPath(conn.path),
            "Devices": dbus.Array([dbus.ObjectPath(d.path) for d in devices], signature="o"),
            "State": dbus.UInt32(AC_STATE_ACTIVATING),
            "Vpn": dbus.Boolean(vpn),
        }

    @dbus.service.signal(IFACE_ACTIVE, signature="uu")
    def StateChanged(self, state, reason):
        pass

    def set_state(self, state):
        self.set_props(IFACE_ACTIVE, State=dbus.UInt32(state))
        self.StateChanged(dbus.UInt32(state), dbus.UInt32(0))


class Manager(PropObject):
    def __init__(self, bus):
        super().__init__(bus, NM_PATH)
        self.bus = bus
        self.n = 0
        self.devices = {}
        self.connections = {}
        self.actives = {}
        self.props[NM] = {
            "ActiveConnections": dbus.Array([], signature="o"),
            "Devices": dbus.Array([], signature="o"),
            "Version": dbus.String("1.42.4-fake"),
            "State": dbus.UInt32(70),
        }

    def next_path(self, kind):
        self.n += 1
        return "%s/%s/%d" % (NM_PATH, kind, self.n)

    def announce(self):
        self.set_props(NM,
                       ActiveConnections=dbus.Array([dbus.ObjectPath(p) for p in self.actives], signature="o"),
                       Devices=dbus.Array([dbus.ObjectPath(p) for p in self.devices], signature="o"))


class Control(dbus.service.Object):
    def __init__(self, bus, manager):
        super().__init__(bus, "/org/igmpd/FakeNM")
        self.m = manager

    @dbus.service.method(CONTROL, in_signature="su", out_signature="o")
    def AddDevice(self, ifname, ifindex):
        path = self.m.next_path("Devices")
        self.m.devices[path] = Device(self.m.bus, path, ifname, ifindex)
        self.m.announce()
        return dbus.ObjectPath(path)

    @dbus.service.method(CONTROL, in_signature="sa{ss}", out_signature="o")
    def AddConnection(self, conn_id, user_data):
        path = self.m.next_path("Settings")
        self.m.connections[path] = Connection(self.m.bus, path, conn_id, user_data)
        return dbus.ObjectPath(path)

    @dbus.service.method(CONTROL, in_signature="oa{ss}", out_signature="")
    def UpdateConnection(self, path, user_data):
        conn = self.m.connections[path]
        conn.user_data = dict(user_data)
        conn.Updated()

    @dbus.service.method(CONTROL, in_signature="oob", out_signature="o")
    def Activate(self, conn_path, dev_path, vpn):
        conn = self.m.connections[conn_path]
        dev = self.m.devices[dev_path]
        path = self.m.next_path("ActiveConnection")
        ac = Active(self.m.bus, path, conn, [dev], vpn)
        self.m.actives[path] = ac
        # As NetworkManager: the active connection appears (activating), the device walks
        # through its states, then both report activated.
        self.m.announce()
        if not vpn:
            dev.set_props(IFACE_DEVICE, ActiveConnection=dbus.ObjectPath(path))
            dev.set_state(DEVICE_STATE_PREPARE)
            dev.set_state(DEVICE_STATE_ACTIVATED)
        ac.set_state(AC_STATE_ACTIVATED)
        return dbus.ObjectPath(path)

    @dbus.service.method(CONTROL, in_signature="o", out_signature="")
    def Deactivate(self, path):
        ac = self.m.actives.pop(path)
        ac.set_state(AC_STATE_DEACTIVATED)
        for dpath in ac.props[IFACE_ACTIVE]["Devices"]:
            dev = self.m.devices.get(str(dpath))
            if dev and not ac.props[IFACE_ACTIVE]["Vpn"]:
                dev.set_props(IFACE_DEVICE, ActiveConnection=dbus.ObjectPath("/"))
                dev.set_state(DEVICE_STATE_DISCONNECTED)
        self.m.announce()
        ac.remove_from_connection()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default=os.environ.get("DBUS_SYSTEM_BUS_ADDRESS"))
    args = ap.parse_args()
    if not args.address:
        sys.exit("fake-nm: no bus address (--address or DBUS_SYSTEM_BUS_ADDRESS)")

    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.address)
    manager = Manager(bus)
    Control(bus, manager)
    # Name last: once it has an owner, every object is there.
    name = dbus.service.BusName(NM, bus, do_not_queue=True)

    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, loop.quit)
    loop.run()
    del name


if __name__ == "__main__":
    main()
