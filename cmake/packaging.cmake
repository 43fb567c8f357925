# The Debian package: `cpack -G DEB` in a build tree configured with the
# system folders (scripts/package does both).  It installs what
# "cmake --install" installs as root: the plugin for the Wireshark it was
# built against, the Lua companion, the TAPO profile, the tapo command and
# its service (tapo.service, disabled: no maintainer script enables it; and
# /etc/tapo/tapo.conf, a conffile that upgrades keep).
# dpkg-shlibdeps ties it to that Wireshark's libraries (their soname changes
# with every minor version, as the plugin ABI does).
pkg_check_modules(TAPO_PACKAGE_WS QUIET wireshark)
string(REGEX MATCH "^[0-9]+\\.[0-9]+" TAPO_PACKAGE_WS_MAJMIN "${TAPO_PACKAGE_WS_VERSION}")

set(CPACK_PACKAGE_NAME "tapo-wireshark")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "why TCP connections stalled: the TAPO classifier in Wireshark")
set(CPACK_PACKAGE_DESCRIPTION "TAPO finds every stall of a TCP connection in a capture and names its
cause (a lost retransmission, a lost tail, a closed receive window, server
think time, ...), as the CoNEXT 2015 paper Demystifying and Mitigating TCP
Stalls at the Server Side does.  This package holds the Wireshark
plugin (tapo.* fields, expert info, Statistics > TCP Stalls (TAPO)), its Lua
companion (per-flow reports), the TAPO configuration profile and the tapo
batch analyser with its service (tapo.service, installed disabled: live
analysis with Prometheus metrics), for Wireshark ${TAPO_PACKAGE_WS_MAJMIN}.")
set(CPACK_PACKAGE_CONTACT "TAPO for Wireshark developers <tapo-wireshark@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION "net")
set(CPACK_DEBIAN_PACKAGE_LICENSE "GPL-2.0-or-later")
set(CPACK_DEBIAN_PACKAGE_RELEASE "1+ws${TAPO_PACKAGE_WS_MAJMIN}")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# procps: /bin/kill, which tapo.service's reload (SIGHUP) runs.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "wireshark-common, procps")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "tshark | wireshark")
set(CPACK_STRIP_FILES ON)
# Personal copies of TAPO that the package shadows are named at install;
# the service's configuration is a conffile (kept on upgrade).
configure_file("${CMAKE_CURRENT_LIST_DIR}/deb-postinst.in" "${CMAKE_BINARY_DIR}/deb/postinst" @ONLY
               FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ
                                WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_BINARY_DIR}/deb/postinst")
if(TAPO_CONFIG_INSTALL_DIR)
    file(WRITE "${CMAKE_BINARY_DIR}/deb/conffiles" "${TAPO_CONFIG_INSTALL_DIR}/tapo.conf\n")
    list(APPEND CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${CMAKE_BINARY_DIR}/deb/conffiles")
endif()
set(CPACK_GENERATOR "DEB")
include(CPack)
