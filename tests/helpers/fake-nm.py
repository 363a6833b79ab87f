#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A stand-in for NetworkManager on a private system bus, for igmpd's integration tests.

It owns org.freedesktop.NetworkManager and serves the part of NetworkManager's D-Bus API that
igmpd and igmpctl use, with the same object paths, interfaces, property types, signals, errors
and rules as NetworkManager 1.42 (src/core/settings/nm-settings-connection.c, devices/nm-device.c):

  /org/freedesktop/NetworkManager                    org.freedesktop.NetworkManager
      ActiveConnections ao, Devices ao; PropertiesChanged on change
  /org/freedesktop/NetworkManager/Settings           org.freedesktop.NetworkManager.Settings
      ListConnections() -> ao, GetConnectionByUuid(s) -> o; Connections ao
  /org/freedesktop/NetworkManager/Settings/N         org.freedesktop.NetworkManager.Settings.Connection
      GetSettings() -> a{sa{sv}}: every setting but the secrets (NM_CONNECTION_SERIALIZE_WITH_NON_SECRET)
      Update2(a{sa{sv}} settings, u flags, a{sv} args) -> a{sv}: flags and args checked as 1.42
          does (persist modes exclusive, args only "plugin"; "version-id" from 1.44 on); an update
          without secrets keeps the stored ones; user.data keys checked as NMSettingUser does;
          callers other than root refused (NetworkManager without a polkit agent)
      Unsaved b, Flags u, Filename s (VersionId t from 1.44 on); Updated() on change
  /org/freedesktop/NetworkManager/Devices/N          org.freedesktop.NetworkManager.Device
      Interface s, Ifindex u, State u, ActiveConnection o; StateChanged(uuu)
      GetAppliedConnection(u) -> (a{sa{sv}} t), Reapply(a{sa{sv}} t u): the applied connection is
          a copy taken at activation, refused (PermissionDenied) to a caller other than root that
          its connection.permissions leave out; Reapply emits no signal (as 1.42), accepts changes
          to the reapplicable settings only (connection, ipv4, ipv6, proxy, user), checks the
          version id and flags
  /org/freedesktop/NetworkManager/ActiveConnection/N org.freedesktop.NetworkManager.Connection.Active
      Id s, Uuid s, Connection o, Devices ao, State u, Vpn b; StateChanged(uu)

The test drives it through /org/igmpd/FakeNM, interface org.igmpd.FakeNM:
  AddDevice(s ifname, u ifindex) -> o
  RenameDevice(o device, s ifname)                 (its link was renamed: Interface follows, as in NetworkManager)
  AddConnection(s id, a{ss} user_data) -> o        (a profile with many kinds of settings and a secret)
  AddConnectionWith(s id, s uuid, as permissions, a{ss} user_data) -> o
  UpdateConnection(o connection, a{ss} user_data)  (emits Updated, as an edited profile does)
  DeleteConnection(o connection)
  Activate(o connection, o device, b vpn) -> o active  (emits the signals real activation emits)
  Deactivate(o active)
  Canon(o connection, b with_user) -> s            settings in a canonical, type-exact form
  UserData(o connection) -> a{ss}; AppliedUserData(o device) -> a{ss}
  Secret(o connection) -> s                         the stored 802-1x.password
  LastUpdate(o connection) -> (u count, u flags, s args)
  LastReapply(o device) -> (u count, u flags, t version_id, s changed_settings)
  SetVersion(s)                                     behave as "1.40" (Reapply takes no flags), "1.42"
                                                    (the default) or "1.44" (VersionId, Update2's version-id)
  EditAfterNextRead(o connection, s key, s value)   another client's edit right after a GetSettings
  SetAppliedDelay(u ms)                             answer GetAppliedConnection ms late (default 0)

Usage: fake-nm.py [--address BUS_ADDRESS]   (default: $DBUS_SYSTEM_BUS_ADDRESS)
"""

import argparse
import json
import os
import pwd
import signal
import sys
import uuid

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NM = "org.freedesktop.NetworkManager"
NM_PATH = "/org/freedesktop/NetworkManager"
SETTINGS_PATH = NM_PATH + "/Settings"
IFACE_SETTINGS = NM + ".Settings"
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

UPDATE2_PERSIST_MODES = 0x1 | 0x2 | 0x4 | 0x8  # to-disk, in-memory, in-memory-detached, in-memory-only
UPDATE2_VOLATILE = 0x10
UPDATE2_ALLOWED = UPDATE2_PERSIST_MODES | UPDATE2_VOLATILE | 0x20 | 0x40
REAPPLY_PRESERVE_EXTERNAL_IP = 0x1
REAPPLICABLE = {"connection", "ipv4", "ipv6", "proxy", "user"}
SECRETS = {"802-1x": {"password"}}


def nm_error(name, message):
    return dbus.exceptions.DBusException(message, name=NM + "." + name)


def canon(v):
    """A type-exact, order-independent rendering of a D-Bus value."""
    t = type(v).__name__
    if isinstance(v, dict):
        return [t, getattr(v, "signature", None), {str(k): canon(x) for k, x in sorted(v.items())}]
    if isinstance(v, tuple):  # a received Struct has no signature attribute set
        return [t, [canon(x) for x in v]]
    if isinstance(v, list):
        return [t, getattr(v, "signature", None), [canon(x) for x in v]]
    if isinstance(v, (int, float)):  # also dbus.Byte and dbus.Boolean, whose str() is not the number
        return [t, int(v) if isinstance(v, int) else float(v)]
    return [t, str(v)]


def ay(data):
    return dbus.Array([dbus.Byte(b) for b in data], signature="y")


def dcopy(v):
    """A deep copy that keeps the D-Bus types and signatures (copy.deepcopy drops signatures) and
    drops the variant_level of received values, so that they go out again as they came in."""
    if isinstance(v, dbus.Dictionary):
        return dbus.Dictionary({dcopy(k): dcopy(x) for k, x in v.items()}, signature=v.signature)
    if isinstance(v, dbus.Array):
        return dbus.Array([dcopy(x) for x in v], signature=v.signature)
    if isinstance(v, dbus.Struct):
        return dbus.Struct([dcopy(x) for x in v], signature=v.signature)
    if isinstance(v, dict):
        return {str(k): dcopy(x) for k, x in v.items()}
    return type(v)(v)


def check_user_key(key):
    """NMSettingUser's key rules (nm_setting_user_check_key)."""
    regular = lambda c: c.isascii() and (c.isalnum() or c in "-_+/=")
    if not key or len(key) > 255:
        return False
    parts = key.split(".")
    return len(parts) >= 2 and all(p and all(regular(c) for c in p) for p in parts)


def caller_uid(bus, sender):
    return bus.get_unix_user(sender)


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
    def __init__(self, manager, path, ifname, ifindex):
        super().__init__(manager.bus, path)
        self.m = manager
        self.applied = None  # settings of the active connection, without secrets
        self.profile = None
        self.version_id = 0
        self.reapplies = 0
        self.last_reapply = (0, 0, "")
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

    def active(self):
        return self.applied is not None and self.props[IFACE_DEVICE]["State"] == DEVICE_STATE_ACTIVATED

    @dbus.service.method(IFACE_DEVICE, in_signature="u", out_signature="a{sa{sv}}t", sender_keyword="sender",
                         async_callbacks=("reply", "error"))
    def GetAppliedConnection(self, flags, sender=None, reply=None, error=None):
        # The answer as it is now, sent after the delay set with SetAppliedDelay (a busy
        # NetworkManager), so that a caller that does not wait for it is seen not to.
        try:
            answer = self.applied_connection(flags, sender)
        except dbus.DBusException as e:
            error(e)
            return
        if self.m.applied_delay_ms == 0:
            reply(*answer)
        else:
            GLib.timeout_add(self.m.applied_delay_ms, lambda: reply(*answer) and False)

    def applied_connection(self, flags, sender):
        if flags != 0:
            raise nm_error("Device.InvalidArgument", "Invalid flags specified")
        if not self.active():
            raise nm_error("Device.NotActive", "Device is not activated")
        # As NetworkManager (nm_auth_is_invocation_in_acl_set_error): root, or a user named in
        # connection.permissions, or anyone when it is empty.
        perms = [str(p) for p in self.applied.get("connection", {}).get("permissions", [])]
        uid = caller_uid(self.m.bus, sender)
        try:
            user = pwd.getpwuid(uid).pw_name
        except KeyError:
            user = str(uid)
        if perms and uid != 0 and "user:%s:" % user not in perms:
            raise nm_error("PermissionDenied", "uid %d has no permission to perform this operation" % uid)
        applied = dbus.Dictionary({k: dbus.Dictionary(dcopy(v), signature="sv") for k, v in self.applied.items()},
                                  signature="sa{sv}")
        return applied, dbus.UInt64(self.version_id)

    @dbus.service.method(IFACE_DEVICE, in_signature="a{sa{sv}}tu", out_signature="",
                         sender_keyword="sender")
    def Reapply(self, settings, version_id, flags, sender=None):
        if flags & ~(REAPPLY_PRESERVE_EXTERNAL_IP if self.m.version >= (1, 42) else 0):
            raise nm_error("Device.Failed", "Invalid flags specified")
        if not self.active():
            raise nm_error("Device.NotActive", "Device is not activated")
        if caller_uid(self.m.bus, sender) != 0:
            raise nm_error("PermissionDenied", "Not authorized to control networking.")
        if len(settings) > 0:
            new = dcopy(settings)
            for name in SECRETS:
                for key in SECRETS[name]:
                    new.get(name, {}).pop(key, None)
        else:
            new = self.profile.settings_without_secrets()
        changed = sorted(s for s in set(new) | set(self.applied)
                         if canon(new.get(s, {})) != canon(self.applied.get(s, {})))
        for s in changed:
            if s not in REAPPLICABLE:
                raise nm_error("Device.IncompatibleConnection", "Can't reapply any changes to '%s' setting" % s)
        if version_id != 0 and version_id != self.version_id:
            raise nm_error("Device.VersionIdMismatch",
                           "Reapply failed because device changed in the meantime and the version-id mismatches")
        self.reapplies += 1
        self.last_reapply = (flags, version_id, ",".join(changed))
        if changed:
            self.version_id += 1
            self.applied = new


class Connection(PropObject):
    def __init__(self, manager, path, conn_id, user_data, conn_uuid=None, permissions=()):
        super().__init__(manager.bus, path)
        self.m = manager
        self.id = conn_id
        self.uuid = conn_uuid or str(uuid.uuid4())
        self.version_id = 1
        self.updates = 0
        self.last_update = (0, "")
        self.edit_after_read = None
        self.secrets = {"802-1x": {"password": dbus.String("s3cret-" + self.uuid[:8])}}
        self.settings = self.rich_settings(conn_id, self.uuid, permissions)
        self.set_user_data(user_data)
        self.props[IFACE_SETTINGS_CONN] = {
            "Unsaved": dbus.Boolean(False),
            "Flags": dbus.UInt32(0),
            "Filename": dbus.String("/etc/NetworkManager/system-connections/%s.nmconnection" % conn_id),
        }
        self.publish_version()

    @staticmethod
    def rich_settings(conn_id, conn_uuid, permissions):
        """A profile with settings of many D-Bus types, as GetSettings sends them."""
        v6 = bytes.fromhex("20010db8000000000000000000000010")
        return {
            "connection": {
                "id": dbus.String(conn_id),
                "uuid": dbus.String(conn_uuid),
                "type": dbus.String("802-3-ethernet"),
                "autoconnect": dbus.Boolean(False),
                "autoconnect-priority": dbus.Int32(-5),
                "timestamp": dbus.UInt64(1700000000),
                "permissions": dbus.Array([dbus.String(p) for p in permissions], signature="s"),
            },
            "802-3-ethernet": {
                "mac-address": ay(bytes.fromhex("020000000001")),
                "mtu": dbus.UInt32(1500),
                "s390-options": dbus.Dictionary({"portno": dbus.String("0")}, signature="ss"),
            },
            "802-1x": {
                "eap": dbus.Array([dbus.String("peap")], signature="s"),
                "identity": dbus.String("settop"),
                "password-flags": dbus.UInt32(0),
            },
            "ipv4": {
                "method": dbus.String("manual"),
                "address-data": dbus.Array([dbus.Dictionary({"address": dbus.String("192.0.2.10"),
                                                             "prefix": dbus.UInt32(24)}, signature="sv")],
                                           signature="a{sv}"),
                "addresses": dbus.Array([dbus.Array([dbus.UInt32(0x0a0200c0), dbus.UInt32(24), dbus.UInt32(0)],
                                                    signature="u")], signature="au"),
                "dns": dbus.Array([dbus.UInt32(0x08080808)], signature="u"),
                "dns-search": dbus.Array([dbus.String("example.net")], signature="s"),
                "route-metric": dbus.Int64(-1),
                "may-fail": dbus.Boolean(True),
            },
            "ipv6": {
                "method": dbus.String("manual"),
                "addresses": dbus.Array([dbus.Struct((ay(v6), dbus.UInt32(64), ay(bytes(16))),
                                                     signature="ayuay")], signature="(ayuay)"),
                "dns": dbus.Array([ay(v6)], signature="ay"),
                "addr-gen-mode": dbus.Int32(1),
            },
            "proxy": {},
        }

    def set_user_data(self, user_data):
        if user_data:
            self.settings["user"] = {"data": dbus.Dictionary(user_data, signature="ss")}
        else:
            self.settings.pop("user", None)

    def user_data(self):
        return dict(self.settings.get("user", {}).get("data", {}))

    def settings_without_secrets(self):
        return dcopy(self.settings)

    def publish_version(self):
        if self.m.version >= (1, 44):
            self.props[IFACE_SETTINGS_CONN]["VersionId"] = dbus.UInt64(self.version_id)
        else:
            self.props[IFACE_SETTINGS_CONN].pop("VersionId", None)

    def changed(self):
        self.version_id += 1
        self.publish_version()
        self.Updated()

    @dbus.service.method(IFACE_SETTINGS_CONN, in_signature="", out_signature="a{sa{sv}}")
    def GetSettings(self):
        reply = dbus.Dictionary({k: dbus.Dictionary(dcopy(v), signature="sv") for k, v in self.settings.items()},
                                signature="sa{sv}")
        if self.edit_after_read:
            key, value = self.edit_after_read
            self.edit_after_read = None
            data = self.user_data()
            data[key] = value
            self.set_user_data(data)
            self.changed()
        return reply

    @dbus.service.method(IFACE_SETTINGS_CONN, in_signature="a{sa{sv}}ua{sv}", out_signature="a{sv}",
                         sender_keyword="sender")
    def Update2(self, settings, flags, args, sender=None):
        if flags & ~UPDATE2_ALLOWED:
            raise nm_error("Settings.InvalidArguments", "Unknown flags")
        modes = flags & UPDATE2_PERSIST_MODES
        if (modes & (modes - 1)) or ((flags & UPDATE2_VOLATILE) and not (modes & 0xe)):
            raise nm_error("Settings.InvalidArguments", "Conflicting flags")
        version_id = 0
        for name, value in args.items():
            if name == "plugin" and isinstance(value, dbus.String):
                continue
            if self.m.version >= (1, 44) and name == "version-id" and isinstance(value, dbus.UInt64):
                version_id = int(value)
                continue
            raise nm_error("Settings.InvalidArguments", "Unsupported argument '%s'" % name)
        new = dcopy(settings)
        con = new.get("connection", {})
        for key in ("id", "uuid", "type"):
            if not con.get(key):
                raise nm_error("Settings.Connection.MissingProperty", "connection.%s: property is missing" % key)
        for key in new.get("user", {}).get("data", {}):
            if not check_user_key(str(key)):
                raise nm_error("Settings.Connection.InvalidProperty", "user.data: invalid key '%s'" % key)
        if caller_uid(self.m.bus, sender) != 0:
            raise nm_error("Settings.PermissionDenied", "Insufficient privileges")
        if version_id != 0 and version_id != self.version_id:
            raise nm_error("Settings.VersionIdMismatch",
                           "Update failed because profile changed in the meantime and the version-id mismatches")
        # As NetworkManager: an update without secrets keeps the stored ones.
        sent = {}
        for name, keys in SECRETS.items():
            for key in keys:
                if key in new.get(name, {}):
                    sent.setdefault(name, {})[key] = new[name].pop(key)
        if sent:
            self.secrets = sent
        self.settings = new
        self.updates += 1
        self.last_update = (flags, json.dumps({str(k): str(v) for k, v in args.items()}, sort_keys=True))
        if modes & 0x1:
            self.set_props(IFACE_SETTINGS_CONN, Unsaved=dbus.Boolean(False))
        elif modes:
            self.set_props(IFACE_SETTINGS_CONN, Unsaved=dbus.Boolean(True))
        self.changed()
        return dbus.Dictionary({}, signature="sv")

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


class Settings(PropObject):
    def __init__(self, manager):
        super().__init__(manager.bus, SETTINGS_PATH)
        self.m = manager
        self.props[IFACE_SETTINGS] = {"Connections": dbus.Array([], signature="o")}

    def announce(self):
        self.set_props(IFACE_SETTINGS,
                       Connections=dbus.Array([dbus.ObjectPath(p) for p in self.m.connections], signature="o"))

    @dbus.service.method(IFACE_SETTINGS, in_signature="", out_signature="ao")
    def ListConnections(self):
        return dbus.Array([dbus.ObjectPath(p) for p in self.m.connections], signature="o")

    @dbus.service.method(IFACE_SETTINGS, in_signature="s", out_signature="o")
    def GetConnectionByUuid(self, conn_uuid):
        for c in self.m.connections.values():
            if c.uuid == conn_uuid:
                return dbus.ObjectPath(c.path)
        raise nm_error("Settings.InvalidConnection", "No connection with the UUID was found.")


class Manager(PropObject):
    def __init__(self, bus):
        super().__init__(bus, NM_PATH)
        self.bus = bus
        self.n = 0
        self.version = (1, 42)
        self.applied_delay_ms = 0
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
    def __init__(self, bus, manager, settings):
        super().__init__(bus, "/org/igmpd/FakeNM")
        self.m = manager
        self.settings = settings

    def add(self, conn_id, user_data, conn_uuid=None, permissions=()):
        path = self.m.next_path("Settings")
        self.m.connections[path] = Connection(self.m, path, conn_id, user_data, conn_uuid, permissions)
        self.settings.announce()
        return dbus.ObjectPath(path)

    @dbus.service.method(CONTROL, in_signature="su", out_signature="o")
    def AddDevice(self, ifname, ifindex):
        path = self.m.next_path("Devices")
        self.m.devices[path] = Device(self.m, path, ifname, ifindex)
        self.m.announce()
        return dbus.ObjectPath(path)

    @dbus.service.method(CONTROL, in_signature="os", out_signature="")
    def RenameDevice(self, path, ifname):
        self.m.devices[path].set_props(IFACE_DEVICE, Interface=dbus.String(ifname), IpInterface=dbus.String(ifname))

    @dbus.service.method(CONTROL, in_signature="sa{ss}", out_signature="o")
    def AddConnection(self, conn_id, user_data):
        return self.add(conn_id, user_data)

    @dbus.service.method(CONTROL, in_signature="ssasa{ss}", out_signature="o")
    def AddConnectionWith(self, conn_id, conn_uuid, permissions, user_data):
        return self.add(conn_id, user_data, conn_uuid or None, permissions)

    @dbus.service.method(CONTROL, in_signature="oa{ss}", out_signature="")
    def UpdateConnection(self, path, user_data):
        conn = self.m.connections[path]
        conn.set_user_data(dict(user_data))
        conn.changed()

    @dbus.service.method(CONTROL, in_signature="o", out_signature="")
    def DeleteConnection(self, path):
        conn = self.m.connections.pop(path)
        self.settings.announce()
        conn.remove_from_connection()

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
            dev.applied = conn.settings_without_secrets()
            dev.profile = conn
            dev.version_id += 1
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
                dev.applied = None
                dev.profile = None
                dev.set_props(IFACE_DEVICE, ActiveConnection=dbus.ObjectPath("/"))
                dev.set_state(DEVICE_STATE_DISCONNECTED)
        self.m.announce()
        ac.remove_from_connection()

    @dbus.service.method(CONTROL, in_signature="ob", out_signature="s")
    def Canon(self, path, with_user):
        settings = dict(self.m.connections[path].settings)
        if not with_user:
            settings.pop("user", None)
        return json.dumps({str(name): {str(k): canon(v) for k, v in section.items()}
                           for name, section in settings.items()}, sort_keys=True)

    @dbus.service.method(CONTROL, in_signature="o", out_signature="a{ss}")
    def UserData(self, path):
        return dbus.Dictionary(self.m.connections[path].user_data(), signature="ss")

    @dbus.service.method(CONTROL, in_signature="o", out_signature="a{ss}")
    def AppliedUserData(self, path):
        dev = self.m.devices[path]
        data = (dev.applied or {}).get("user", {}).get("data", {})
        return dbus.Dictionary(dict(data), signature="ss")

    @dbus.service.method(CONTROL, in_signature="o", out_signature="s")
    def Secret(self, path):
        return self.m.connections[path].secrets.get("802-1x", {}).get("password", "")

    @dbus.service.method(CONTROL, in_signature="o", out_signature="uus")
    def LastUpdate(self, path):
        conn = self.m.connections[path]
        return dbus.UInt32(conn.updates), dbus.UInt32(conn.last_update[0]), conn.last_update[1]

    @dbus.service.method(CONTROL, in_signature="o", out_signature="uuts")
    def LastReapply(self, path):
        dev = self.m.devices[path]
        flags, version_id, changed = dev.last_reapply
        return dbus.UInt32(dev.reapplies), dbus.UInt32(flags), dbus.UInt64(version_id), changed

    @dbus.service.method(CONTROL, in_signature="s", out_signature="")
    def SetVersion(self, version):
        self.m.version = tuple(int(x) for x in str(version).split("."))
        self.m.props[NM]["Version"] = dbus.String(version + ".0-fake")
        for conn in self.m.connections.values():
            conn.publish_version()

    @dbus.service.method(CONTROL, in_signature="u", out_signature="")
    def SetAppliedDelay(self, ms):
        self.m.applied_delay_ms = int(ms)

    @dbus.service.method(CONTROL, in_signature="oss", out_signature="")
    def EditAfterNextRead(self, path, key, value):
        self.m.connections[path].edit_after_read = (str(key), str(value))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default=os.environ.get("DBUS_SYSTEM_BUS_ADDRESS"))
    args = ap.parse_args()
    if not args.address:
        sys.exit("fake-nm: no bus address (--address or DBUS_SYSTEM_BUS_ADDRESS)")

    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.address)
    manager = Manager(bus)
    settings = Settings(manager)
    Control(bus, manager, settings)
    # Name last: once it has an owner, every object is there.
    name = dbus.service.BusName(NM, bus, do_not_queue=True)

    loop = GLib.MainLoop()
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGINT, loop.quit)
    loop.run()
    del name


if __name__ == "__main__":
    main()
