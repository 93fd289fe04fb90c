"""Polling helper shared by the integration tests."""
import time


def wait_for(predicate, timeout, what, interval=0.5):
    """The first truthy value of predicate() within timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out waiting for " + what)
