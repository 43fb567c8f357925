#!/usr/bin/env python3
"""Screenshots of the real Wireshark GUI (Qt, under Xvfb) for docs/images:

    tapo-packet-tree.png   a stall packet's TAPO tree (f-double.pcap)
    tapo-statistics.png    Statistics > TCP Stalls (TAPO) (mixed-web.pcap)
    tapo-flow-report.png   Tools > TAPO > Flow report, the Lua companion
    tapo-profile.png       the TAPO configuration profile: its columns,
                           coloring rules and filter buttons (mixed-web.pcap)
    tapo-html-window.png   Tools > TAPO > HTML incident report (mixed-web.pcap)
    tapo-report.png        the HTML report it wrote, in headless Chromium
    tapo-flow-report.png is taken as a new user gets there: the capture
    opened in the Default profile, the TAPO profile chosen in the status
    bar, then Tools > TAPO > Flow report.

    scripts/gui_screenshots.py [OUTPUT_DIR]     (default: docs/images)

Needs wireshark-qt, xvfb, xdotool, imagemagick and chromium
(scripts/install-deps) and a build tree (TAPO_BUILD_DIR, default build/).  As root, Wireshark runs as
an unprivileged user (TAPO_TEST_USER, default nobody), like the tests.  It
exits non-zero when a window does not appear.  Menus are opened with the
keyboard or with clicks at fixed places of a 1100x900 window: the GUI has
no scripting interface.
"""

import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("TAPO_BUILD_DIR", os.path.join(ROOT, "build"))
USER = os.environ.get("TAPO_TEST_USER", "nobody")
CAPTURES = os.path.join(ROOT, "test-captures")
WINDOW = (1100, 900)
SCREEN = (1700, 1000)        # room for a 1600-pixel main window
# In a 1100x900 main window with the default fonts of Debian 12: the
# "Statistics" and "Tools" menu titles, the status bar's profile name (its
# right end), and the packet-details rows once the packet list is 140
# pixels high (see the recent file below).
STATISTICS_MENU = (325, 10)
TOOLS_MENU = (534, 10)
PROFILE_LABEL_FROM_RIGHT = 80
STATUS_BAR_FROM_BOTTOM = 11
DETAILS_ROW_Y = 356          # first row of the packet details
DETAILS_ROW_HEIGHT = 17


class Gui:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.tmp = tempfile.mkdtemp(prefix="tapo-gui-")
        self.stderr_path = os.path.join(self.tmp, "wireshark-stderr.log")
        self.size = WINDOW
        self.display = self._start_xvfb()
        self.env = dict(os.environ, DISPLAY=self.display)
        self._prepare_profile()
        self.wireshark = None

    def _start_xvfb(self):
        for n in range(91, 120):
            if not os.path.exists("/tmp/.X11-unix/X%d" % n) and not os.path.exists("/tmp/.X%d-lock" % n):
                self.xvfb = subprocess.Popen(["Xvfb", ":%d" % n, "-screen", "0", "%dx%dx24" % SCREEN,
                                              "-nolisten", "tcp"], stderr=subprocess.DEVNULL)
                time.sleep(1.5)
                if self.xvfb.poll() is None:
                    return ":%d" % n
        sys.exit("no free X display for Xvfb")

    def _prepare_profile(self):
        """Plugins laid out as installed, a private profile, captures."""
        plugins = os.path.join(self.tmp, "plugins")
        shutil.copytree(os.path.join(BUILD, "plugins"), plugins)
        for name in ("tapo_flows.lua", "tapo_report.lua", "tapo_html.lua", "tapo_policy.lua"):
            shutil.copy(os.path.join(ROOT, "lua", name), plugins)
        profile = os.path.join(self.tmp, "profile")
        os.makedirs(profile)
        # The TAPO profile installed in the personal folder, as
        # scripts/install-personal puts it.
        shutil.copytree(os.path.join(ROOT, "profiles", "TAPO"), os.path.join(profile, "profiles", "TAPO"))
        with open(os.path.join(profile, "profiles", "TAPO", "recent"), "a") as f:
            f.write("gui.geometry_main_upper_pane: 700\ngui.geometry_main_lower_pane: 0\n")
        with open(os.path.join(profile, "recent"), "w") as f:
            f.write("gui.geometry_main_upper_pane: 140\ngui.geometry_main_lower_pane: 0\n")
        runtime = os.path.join(self.tmp, "run")
        os.makedirs(runtime, mode=0o700)
        # The HTML report's tapo, and where the GUI writes its reports.
        self.tapo = os.path.join(self.tmp, "tapo")
        shutil.copy(os.path.join(BUILD, "tapo"), self.tapo)
        self.reports = os.path.join(self.tmp, "reports")
        os.makedirs(self.reports)
        for name in ("f-double.pcap", "mixed-web.pcap"):
            shutil.copy(os.path.join(CAPTURES, name), self.tmp)
        subprocess.run(["chmod", "-R", "a+rX", self.tmp], check=True)
        os.chmod(runtime, 0o700)   # else Qt makes its own in TMPDIR
        if os.geteuid() == 0:
            pw = pwd.getpwnam(USER)
            for path in (profile, runtime, self.reports):
                subprocess.run(["chown", "-R", "%d:%d" % (pw.pw_uid, pw.pw_gid), path], check=True)
        self.plugins, self.profile, self.runtime = plugins, profile, runtime

    def xdo(self, *args):
        return subprocess.run(["xdotool"] + [str(a) for a in args], env=self.env,
                              capture_output=True, text=True).stdout.split()

    def wait_window(self, title, timeout=40):
        end = time.time() + timeout
        while time.time() < end:
            ids = self.xdo("search", "--name", re.escape(title))   # a regex for xdotool
            if ids:
                time.sleep(1.0)   # let it paint
                return ids[0]
            time.sleep(0.5)
        failed = os.path.join(self.out_dir, "failed-screen.png")
        subprocess.run(["import", "-window", "root", failed], env=self.env)
        self.close()
        sys.exit("the window %r did not appear (the screen: %s)" % (title, failed))

    def add_capture(self, path):
        """A capture of another folder, where Wireshark can read it; its name."""
        shutil.copy(path, self.tmp)
        os.chmod(os.path.join(self.tmp, os.path.basename(path)), 0o644)
        return os.path.basename(path)

    def open(self, capture, *args, size=WINDOW):
        """Wireshark on a capture of self.tmp, its standard error in
        self.stderr_path (appended)."""
        self.close_wireshark()
        argv = ["wireshark", "-r", os.path.join(self.tmp, capture)] + list(args)
        env = ["env", "DISPLAY=" + self.display, "HOME=" + self.profile,
               "WIRESHARK_CONFIG_DIR=" + self.profile, "WIRESHARK_PLUGIN_DIR=" + self.plugins,
               "XDG_RUNTIME_DIR=" + self.runtime, "TAPO_BIN=" + self.tapo, "TMPDIR=" + self.reports,
               "TAPO_BROWSER=true"]
        if os.geteuid() == 0:
            env = ["runuser", "-u", USER, "--"] + env
        with open(self.stderr_path, "a") as log:
            self.wireshark = subprocess.Popen(env + argv, stdout=subprocess.DEVNULL, stderr=log,
                                              start_new_session=True)
        main = self.wait_window(capture)
        self.xdo("windowsize", main, *size)
        self.xdo("windowmove", main, 0, 0)
        time.sleep(1.0)
        self.size = size
        return main

    def choose_profile(self, position):
        """The status bar's profile menu (a click on the profile's name):
        the entry at position (0: Default, 1: TAPO; the menu lists Default,
        then the personal profiles, then the system ones)."""
        self.click(self.size[0] - PROFILE_LABEL_FROM_RIGHT, self.size[1] - STATUS_BAR_FROM_BOTTOM)
        self.keys(*(["Down"] * (position + 1) + ["Return"]))
        time.sleep(3.0)   # the profile's columns and colours, the packets dissected again

    def tools_tapo(self, entry):
        """Tools > TAPO > its entry (0: Flow report, 1: HTML incident report)."""
        self.click(*TOOLS_MENU)
        self.keys(*(["Up", "Right"] + ["Down"] * entry + ["Return"]))

    def shot(self, window, name):
        self.xdo("mousemove", SCREEN[0] - 10, SCREEN[1] - 10)   # no hover highlight
        time.sleep(0.5)
        path = os.path.join(self.out_dir, name)
        subprocess.run(["import", "-window", str(window), path], env=self.env, check=True)
        print("wrote", os.path.relpath(path))

    def click(self, x, y, double=False):
        self.xdo("mousemove", x, y, "click", "--repeat", 2 if double else 1, 1)
        time.sleep(0.8)

    def keys(self, *keys):
        """Keys for the open menu (keyboard focus is unreliable elsewhere
        without a window manager)."""
        for key in keys:
            self.xdo("key", key)
            time.sleep(0.4)

    def close_wireshark(self):
        if self.wireshark and self.wireshark.poll() is None:
            os.killpg(self.wireshark.pid, signal.SIGTERM)
            self.wireshark.wait(timeout=10)
        self.wireshark = None

    def close(self):
        self.close_wireshark()
        self.xvfb.terminate()
        shutil.rmtree(self.tmp, ignore_errors=True)


def packet_tree(gui):
    """The f-double stall, its TAPO tree expanded (two double-clicks: the
    TAPO line is the fifth row, its stall subtree the sixth)."""
    main = gui.open("f-double.pcap", "-Y", "tapo.stall", "-o", "gui.layout_content_3:NONE")
    gui.click(200, DETAILS_ROW_Y + 4 * DETAILS_ROW_HEIGHT, double=True)
    gui.click(200, DETAILS_ROW_Y + 5 * DETAILS_ROW_HEIGHT, double=True)
    gui.shot(main, "tapo-packet-tree.png")


def statistics(gui):
    """Statistics > TCP Stalls (TAPO): the menu's last entry."""
    gui.open("mixed-web.pcap")
    gui.click(*STATISTICS_MENU)
    gui.keys("Up", "Return")
    dialog = gui.wait_window("TCP Stalls (TAPO)")
    gui.xdo("windowsize", dialog, 900, 720)
    gui.xdo("windowmove", dialog, 0, 0)
    time.sleep(1.0)
    gui.shot(dialog, "tapo-statistics.png")


def flow_report(gui):
    """Tools > TAPO > Flow report (the Lua companion's menu), as a new user
    gets there: the capture opened in the Default profile, then the TAPO
    profile chosen in the status bar."""
    gui.open("mixed-web.pcap")
    gui.choose_profile(1)
    gui.tools_tapo(0)
    window = gui.wait_window("TAPO flow report")
    gui.xdo("windowsize", window, 1380, 560)
    gui.xdo("windowmove", window, 0, 0)
    time.sleep(1.0)
    gui.shot(window, "tapo-flow-report.png")


def html_report(gui):
    """Tools > TAPO > HTML incident report (the menu's second entry): the
    window naming the report, then the report itself in headless Chromium."""
    gui.open("mixed-web.pcap")
    gui.tools_tapo(1)
    window = gui.wait_window("TAPO HTML report")
    gui.xdo("windowsize", window, 900, 450)
    gui.xdo("windowmove", window, 0, 0)
    time.sleep(1.0)
    gui.shot(window, "tapo-html-window.png")
    # The report of mixed-web.pcap, named after it, and nothing else left
    # in the temporary folder.
    reports = os.listdir(gui.reports)
    if reports != ["mixed-web-tapo-report.html"]:
        gui.close()
        sys.exit("the GUI left %s in the temporary folder, not mixed-web-tapo-report.html alone" % reports)
    path = os.path.join(gui.out_dir, "tapo-report.png")
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--window-size=1280,1700", "--screenshot=" + path,
                    "file://" + os.path.join(gui.reports, reports[0])],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120, check=True)
    print("wrote", os.path.relpath(path))


def profile(gui):
    """The TAPO profile chosen (-C TAPO, as the status bar's profile menu
    does), in a 1600-pixel window: stall packets only, coloured by
    category, the stall columns, the Info column and the filter buttons."""
    main = gui.open("mixed-web.pcap", "-C", "TAPO", "-Y", "tapo.stall", size=(1600, 900))
    gui.shot(main, "tapo-profile.png")


def main():
    out_dir = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "docs", "images"))
    os.makedirs(out_dir, exist_ok=True)
    gui = Gui(out_dir)
    try:
        packet_tree(gui)
        statistics(gui)
        flow_report(gui)
        html_report(gui)
        profile(gui)
    finally:
        gui.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
