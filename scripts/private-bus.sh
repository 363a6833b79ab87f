# SPDX-License-Identifier: LGPL-2.1-or-later
# A private D-Bus bus configured like the system bus, for the demo and the tests (sourced by
# scripts/demo.sh and tests/integration/dbus-lib.sh). No system bus runs on a bare test machine,
# and neither may touch the host's: they start their own dbus-daemon with this configuration.
#
#   private_bus_config SOCKET [EXTRA-XML] > system.conf
#
# prints a configuration that listens on the unix socket SOCKET, denies by default (method
# calls only where a policy file allows them, as on the system bus) and includes igmpd's own
# policy file, data/dbus/org.igmpd1.conf. EXTRA-XML goes in before that include.

private_bus_config() {
        local socket=$1 extra=${2:-}
        local policy
        policy=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/data/dbus/org.igmpd1.conf
        cat <<EOC
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"
          send_member="UpdateActivationEnvironment"/>
    <deny send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Debug.Stats"/>
  </policy>
$extra
  <include>$policy</include>
</busconfig>
EOC
}
