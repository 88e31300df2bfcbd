# SPDX-License-Identifier: GPL-2.0
"""What scripts/check-docs.sh and scripts/check-params.sh share: one PASS or
FAIL line per check, counted, and the summary line."""


class Checks:
    """Counts the checks of one script and prints each one's line."""

    def __init__(self, name):
        self.name = name
        self.passed = 0
        self.failed = 0

    def result(self, ok, what, bad):
        """Print PASS or FAIL for `what` (with the list `bad` on a FAIL)."""
        if ok:
            self.passed += 1
            print("PASS " + what)
        else:
            self.failed += 1
            print("FAIL " + what + ": " + "; ".join(bad))

    def end(self):
        """Print "<name>: N passed, N failed"; the exit status."""
        print("%s: %d passed, %d failed" % (self.name, self.passed, self.failed))
        return 1 if self.failed else 0
