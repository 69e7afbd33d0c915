"""Sign-in is throttled per user and per address, with a growing wait.

The old attack: 20 wrong passwords in 1.5 s, then the right one worked — nothing
slowed password guessing on the page's login or ``/fhir``'s HTTP Basic. Now, after a
few failures, every further attempt from that address or for that user must wait
(429 with ``Retry-After``) before its password is even checked.
"""

from __future__ import annotations

import time

import httpx
from conftest import PASSWORDS

from docgemma.auth import SignInThrottle


def login(url: str, user: str, password: str) -> httpx.Response:
    return httpx.post(f"{url}/login", data={"username": user, "password": password}, timeout=30)


def test_twenty_wrong_passwords_then_the_right_one_is_refused(live_app_with, user_hashes) -> None:
    url = live_app_with(auth_users=user_hashes, sign_in_backoff_seconds=8.0)
    answers = [login(url, "dr.lee", f"guess {n}").status_code for n in range(20)]
    assert answers[:5] == [400] * 5  # the free attempts: wrong password
    assert answers[5:] == [429] * 15  # then the wait, whatever is sent
    right = login(url, "dr.lee", PASSWORDS["dr.lee"])
    assert right.status_code == 429 and int(right.headers["Retry-After"]) >= 1
    time.sleep(int(right.headers["Retry-After"]) + 0.2)
    assert login(url, "dr.lee", PASSWORDS["dr.lee"]).status_code == 200  # the backoff ends


def test_guessing_across_names_from_one_address_is_throttled(live_app_with, user_hashes) -> None:
    url = live_app_with(auth_users=user_hashes, sign_in_backoff_seconds=30.0)
    for n in range(6):
        login(url, f"someone-{n}", "guess")
    assert login(url, "mallory", PASSWORDS["mallory"]).status_code == 429


def test_fhir_basic_is_throttled_too(live_app_with, user_hashes) -> None:
    url = live_app_with(auth_users=user_hashes, sign_in_backoff_seconds=30.0)
    for n in range(6):
        httpx.get(f"{url}/fhir/Patient", auth=("dr.lee", f"guess {n}"), timeout=30)
    right = httpx.get(f"{url}/fhir/Patient", auth=("dr.lee", PASSWORDS["dr.lee"]), timeout=30)
    assert right.status_code == 401


def test_the_user_is_throttled_from_every_address() -> None:
    now = [0.0]
    throttle = SignInThrottle(free=3, base_s=10.0, clock=lambda: now[0])
    for n in range(3):
        throttle.record("dr.lee", f"10.0.0.{n}", ok=False)
    assert throttle.wait_s("dr.lee", "10.0.0.99") == 10.0
    assert throttle.wait_s("mallory", "10.0.0.99") == 0.0
    now[0] = 10.0
    assert throttle.wait_s("dr.lee", "10.0.0.99") == 0.0
    throttle.record("dr.lee", "10.0.0.99", ok=False)
    assert throttle.wait_s("dr.lee", "10.0.0.98") == 20.0  # doubled
