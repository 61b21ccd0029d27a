"""Runs one unittest module of the recorder's suites for CTest.

Exit 0 when it passed; 1 when a test failed or errored, or when the module ran no test;
77 (the suites' SKIP_RETURN_CODE) when every test skipped, so that CTest shows the suite
as Skipped instead of Passed.  Usage: run_suite.py MODULE
"""
import sys
import unittest

ALL_SKIPPED = 77


def main() -> int:
    module = sys.argv[1]
    suite = unittest.defaultTestLoader.loadTestsFromName(module)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun == 0:
        print(f"{module}: no test ran", file=sys.stderr)
        return 1
    if len(result.skipped) == result.testsRun:
        print(f"{module}: every test skipped: reported to CTest as skipped", file=sys.stderr)
        return ALL_SKIPPED
    return 0


if __name__ == "__main__":
    sys.exit(main())
