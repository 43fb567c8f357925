"""TAPO against the blind verdict set (tests/verdicts/: issue 25), through
tshark and the plugin, two passes.  The score is printed whether or not the
goals are met (tests/verdicts/README.md says how the set was made).

Issue 25's goals: right on at least 95 % of the rows, on at least 90 % of
the held-out half at every vantage, `high` right at least 98 % of the time.
The development half and `high` are held to them.  The held-out half is not
tuned to, and does not meet them yet (84.8 % of first readings when it was
first scored, tests/verdicts/README.md): it and the whole set are held to
floors at what main scored when this was written, so that no change makes
them worse; raise the floors as the rules improve, never lower them."""

import os
import unittest

import tshark_runner as ts
import verdict_set

GOAL_DEVELOPMENT = 0.95
GOAL_HIGH = 0.98
GOAL_ALL, FLOOR_ALL = 0.95, 0.93
GOAL_HELD_OUT, FLOOR_HELD_OUT = 0.90, 0.87
# A vantage with fewer rows than this in a half says too little to hold a
# goal to; its rows still count in the half's and the whole set's.
MIN_ROWS = 10


@unittest.skipUnless(os.path.isdir(ts.REAL_CAPTURES), "no real captures at %s" % ts.REAL_CAPTURES)
class VerdictSet(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = verdict_set.rows()
        cls.outcomes, cls.scores = verdict_set.score(cls.table)
        print("\n" + verdict_set.report(cls.scores))

    def test_the_set_is_what_the_issue_asks(self):
        stalls = [r for r in self.table if r["expected"] != "none"]
        self.assertGreaterEqual(len(stalls), 150)
        away = [r for r in stalls if r["vantage"] != "sender"]
        self.assertGreaterEqual(len(away), len(stalls) / 2, "at least half away from the sender")
        self.assertEqual({r["half"] for r in self.table}, {"development", "held-out"})

    def test_right_on_the_development_half(self):
        self.assertGreaterEqual(self.scores.by_half.share("development"), GOAL_DEVELOPMENT,
                                self.misses("development"))

    def test_right_overall(self):
        share = self.scores.by_half.share("all")
        self.assertGreaterEqual(share, FLOOR_ALL, self.misses())
        if share < GOAL_ALL:
            print("verdict set: %.1f %% right overall, below issue 25's goal of %.0f %%" % (100 * share, 100 * GOAL_ALL))

    def test_right_on_the_held_out_half_at_every_vantage(self):
        for (half, vantage), total in sorted(self.scores.by_vantage.total.items()):
            if half != "held-out" or total < MIN_ROWS:
                continue
            with self.subTest(vantage=vantage):
                share = self.scores.by_vantage.share((half, vantage))
                self.assertGreaterEqual(share, FLOOR_HELD_OUT, self.misses("held-out", vantage))
                if share < GOAL_HELD_OUT:
                    print("verdict set: held-out %s %.1f %% right, below issue 25's goal of %.0f %%"
                          % (vantage, 100 * share, 100 * GOAL_HELD_OUT))

    def test_high_confidence_is_right(self):
        self.assertGreaterEqual(self.scores.by_confidence.share("high"), GOAL_HIGH,
                                self.misses(confidence="high"))

    def misses(self, half=None, vantage=None, confidence=None):
        lines = ["%s frame %s (%s, %s): expected %s, TAPO %s (%s)" % (
                     r["capture"], r["frame"], r["half"], r["vantage"], r["expected"], cause, conf)
                 for r, cause, conf, ok in self.outcomes
                 if not ok and (half is None or r["half"] == half) and (vantage is None or r["vantage"] == vantage)
                 and (confidence is None or conf == confidence)]
        return "%d rows wrong:\n%s" % (len(lines), "\n".join(lines))


if __name__ == "__main__":
    unittest.main()
