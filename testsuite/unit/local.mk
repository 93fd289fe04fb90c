# testsuite/unit
