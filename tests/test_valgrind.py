"""valgrind (memcheck) over a few captures in two passes with the plugin as
built for users: no memory error at all, and no leak from the plugin's own
allocations (Wireshark 4.0 leaks a few blocks of its own at exit; only
stacks through the plugin count)."""

import os
import re
import shutil
import subprocess
import unittest

import tshark_runner as ts

CAPTURES = ["f-double.pcap", "ack-delay.pcap", "zero-window.pcap",
            os.path.join("vantage", "mixed-web.receiver.pcap"), os.path.join("vantage", "f-double.middle.pcap")]
LEAK = re.compile(r"definitely lost in loss record.*?\n(?:==\d+== {3}.*\n)+", re.MULTILINE)


@unittest.skipUnless(shutil.which("valgrind"), "valgrind is not installed")
class Valgrind(unittest.TestCase):
    def test_memcheck_is_clean(self):
        for name in CAPTURES:
            with self.subTest(capture=name):
                pcap = ts.readable(os.path.join(ts.ROOT, "test-captures", name))
                argv = ts.command(["-2", "-r", pcap, "-Y", "tapo.stall", "-T", "fields",
                                   "-e", "frame.number", "-e", "tapo.stall.cause"])
                i = argv.index("tshark")
                argv[i:i] = ["valgrind", "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
                             "--show-leak-kinds=definite", "--errors-for-leak-kinds=none", "-q"]
                proc = subprocess.run(argv, capture_output=True, text=True)
                self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
                self.assertTrue(proc.stdout.strip(), "no stall found under valgrind")
                ours = [leak for leak in LEAK.findall(proc.stderr) if "tapo" in leak]
                self.assertEqual(ours, [], "\n".join(ours))


if __name__ == "__main__":
    unittest.main()
