"""One copy of TAPO at a time (issue 28): Wireshark loads a plugin found
in both its system and personal folders from the system one and warns at
every start ("tapo.so was found in multiple directories", a dialog in the
GUI).  The personal install (the archive's install.sh,
scripts/install-personal) finds a system copy, says which one Wireshark
loads and how to remove it, and installs nothing; without one it installs
and tshark loads the personal copy without a warning.  The system folder is
played by WIRESHARK_PLUGIN_DIR, as tshark -G folders reports it."""

import glob
import os
import shutil
import subprocess
import unittest

import tshark_runner as ts


def archive(top):
    """The personal archive's layout (scripts/package) from the build tree."""
    built = glob.glob(os.path.join(ts.BUILD, "plugins", "*", "epan", "tapo.so"))[0]
    majmin = os.path.basename(os.path.dirname(os.path.dirname(built)))
    os.makedirs(os.path.join(top, "plugins", majmin, "epan"))
    shutil.copy(built, os.path.join(top, "plugins", majmin, "epan"))
    for name in ("tapo_flows.lua", "tapo_report.lua", "tapo_html.lua", "tapo_policy.lua"):
        shutil.copy(os.path.join(ts.ROOT, "lua", name), os.path.join(top, "plugins"))
    shutil.copytree(os.path.join(ts.ROOT, "profiles", "TAPO"), os.path.join(top, "profiles", "TAPO"))
    for sub, src in (("bin", os.path.join(ts.BUILD, "tapo")), ("share/man/man1", os.path.join(ts.ROOT, "docs", "tapo.1")),
                     ("share/bash-completion/completions", os.path.join(ts.ROOT, "scripts", "completion", "tapo"))):
        os.makedirs(os.path.join(top, sub))
        shutil.copy(src, os.path.join(top, sub))
    shutil.copy(os.path.join(ts.ROOT, "scripts", "install-personal"), os.path.join(top, "install.sh"))
    return majmin


class PersonalInstall(unittest.TestCase):
    def setUp(self):
        self.tmp = ts.work_dir("tapo-install-")
        self.top = os.path.join(self.tmp, "tapo-archive")
        self.majmin = archive(self.top)
        self.home = os.path.join(self.tmp, "home")
        self.system = os.path.join(self.tmp, "system-plugins")
        os.makedirs(self.home)
        os.makedirs(os.path.join(self.system, self.majmin, "epan"))
        subprocess.run(["chmod", "-R", "a+rwX", self.tmp], check=True)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def as_user(self, argv):
        env = ["env", "HOME=" + self.home, "WIRESHARK_PLUGIN_DIR=" + self.system, "PATH=" + os.environ["PATH"]]
        if os.geteuid() == 0:
            argv = ["runuser", "-u", ts.TEST_USER, "--"] + env + argv
        else:
            argv = env + argv
        return subprocess.run(argv, capture_output=True, text=True)

    def personal_plugin(self):
        return os.path.join(self.home, ".local", "lib", "wireshark", "plugins", self.majmin, "epan", "tapo.so")

    def test_a_system_copy_is_named_and_nothing_installed(self):
        system_copy = os.path.join(self.system, self.majmin, "epan", "tapo.so")
        shutil.copy(glob.glob(os.path.join(ts.BUILD, "plugins", "*", "epan", "tapo.so"))[0], system_copy)
        os.chmod(system_copy, 0o755)
        p = self.as_user(["sh", os.path.join(self.top, "install.sh")])
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("already installed system-wide: " + system_copy, p.stderr)
        self.assertIn("Wireshark loads that copy", p.stderr)
        self.assertIn("rm -f " + system_copy, p.stderr)
        self.assertFalse(os.path.exists(self.personal_plugin()))

    def test_without_one_the_personal_copy_loads_without_a_warning(self):
        p = self.as_user(["sh", os.path.join(self.top, "install.sh")])
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(os.path.exists(self.personal_plugin()))
        plugins = self.as_user(["tshark", "-G", "plugins"])
        self.assertNotIn("multiple directories", plugins.stderr)
        self.assertIn(self.personal_plugin(), plugins.stdout)


if __name__ == "__main__":
    unittest.main()
