"""The model's lock serves waiting callers in the order they arrived."""

from __future__ import annotations

import threading
import time

from docgemma.llm.fair_lock import FairLock


def wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_waiters_get_the_lock_in_arrival_order() -> None:
    lock = FairLock()
    order: list[int] = []

    def call(n: int) -> None:
        with lock:
            order.append(n)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(12)]
    with lock:
        for n, thread in enumerate(threads):
            thread.start()
            wait_until(lambda n=n: lock.queued == n + 2)  # the holder and n + 1 waiters
    for thread in threads:
        thread.join(5)
    assert order == list(range(12)) and lock.queued == 0


def test_a_caller_that_comes_back_queues_behind_those_already_waiting() -> None:
    """One session's next call cannot jump ahead of another session's waiting call."""
    lock = FairLock()
    order: list[str] = []
    first_done = threading.Event()

    def greedy() -> None:
        with lock:
            order.append("greedy-1")
            first_done.wait(5)
        with lock:
            order.append("greedy-2")

    def patient() -> None:
        with lock:
            order.append("patient")

    a = threading.Thread(target=greedy)
    a.start()
    wait_until(lambda: order == ["greedy-1"])
    b = threading.Thread(target=patient)
    b.start()
    wait_until(lambda: lock.queued == 2)
    first_done.set()
    a.join(5), b.join(5)
    assert order == ["greedy-1", "patient", "greedy-2"]


def test_an_error_inside_releases_the_lock() -> None:
    lock = FairLock()
    try:
        with lock:
            raise ValueError("model failed")
    except ValueError:
        pass
    assert lock.queued == 0
    with lock:
        assert lock.queued == 1
