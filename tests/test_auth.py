"""The access policy: password hashes, mode resolution, and what each mode lets through."""

from __future__ import annotations

import base64

import pytest
from starlette.requests import Request

from docgemma.auth import Access, AccessConfigError, Mode, hash_password, main, verify_password
from docgemma.config import Settings


def request(client: str = "127.0.0.1", **headers: str) -> Request:
    raw = [(k.lower().replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "headers": raw, "client": (client, 1234)})


def test_passwords_are_stored_salted_and_checked_in_constant_time():
    first, second = hash_password("s3cret-pass"), hash_password("s3cret-pass")
    assert first != second and "s3cret" not in first  # salted, never in clear
    assert verify_password("s3cret-pass", first) and verify_password("s3cret-pass", second)
    assert not verify_password("s3cret-pasS", first)
    assert not verify_password("s3cret-pass", "plain-text-password")  # malformed: no match
    assert not verify_password("s3cret-pass", first.replace("scrypt", "md5"))


def test_auto_mode_follows_what_is_configured(tmp_path):
    hashes = {"dr.lee": hash_password("pw-12345678")}
    embedded = {"embedded_ehr": True}
    assert Access.from_settings(Settings(data_dir=tmp_path), **embedded).mode is Mode.OPEN
    users = Settings(data_dir=tmp_path, auth_users=hashes)
    assert Access.from_settings(users, **embedded).mode is Mode.USERS
    header = Settings(data_dir=tmp_path, auth_header="X-Forwarded-User")
    assert Access.from_settings(header, **embedded).mode is Mode.HEADER
    external = Settings(data_dir=tmp_path, auth_users=hashes, fhir_url="https://ehr.example/fhir")
    assert Access.from_settings(external, embedded_ehr=False).mode is Mode.USERS


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"auth_mode": "users"}, "needs DOCGEMMA_AUTH_USERS"),
        ({"auth_mode": "header"}, "needs DOCGEMMA_AUTH_HEADER"),
        ({"auth_mode": "open", "fhir_url": "https://ehr.example/fhir"}, "synthetic EHR"),
        ({"fhir_url": "https://ehr.example/fhir"}, "synthetic EHR"),
    ],
)
def test_unsafe_or_incomplete_settings_refuse_to_start(tmp_path, settings, message):
    s = Settings(data_dir=tmp_path, **settings)
    with pytest.raises(AccessConfigError, match=message):
        Access.from_settings(s, embedded_ehr=s.fhir_url is None)


def test_fhir_readers_per_mode():
    lee = {"dr.lee": hash_password("pw-12345678")}
    basic = "Basic " + base64.b64encode(b"dr.lee:pw-12345678").decode()
    wrong = "Basic " + base64.b64encode(b"dr.lee:nope").decode()
    users = Access(Mode.USERS, users=lee)
    assert users.fhir_reader(request(authorization=basic))
    assert not users.fhir_reader(request(authorization=wrong))
    assert not users.fhir_reader(request())  # loopback is not a credential here
    proxy = Access(Mode.HEADER, header="X-Forwarded-User")
    assert proxy.fhir_reader(request("10.0.0.8", x_forwarded_user="dr.lee"))
    assert not proxy.fhir_reader(request("10.0.0.8", x_forwarded_user="  "))
    demo = Access(Mode.OPEN)
    assert demo.fhir_reader(request()) and not demo.fhir_reader(request("203.0.113.9"))
    assert users.check_login("dr.lee", "pw-12345678") and not users.check_login("eve", "x")


def test_the_cli_prints_a_hash_that_verifies(monkeypatch, capsys):
    monkeypatch.setattr("getpass.getpass", lambda prompt="": "long enough pw")
    main(["dr.lee"])
    line = capsys.readouterr().out
    stored = line.split('"dr.lee": "')[1].split('"')[0]
    assert line.startswith("DOCGEMMA_AUTH_USERS=") and verify_password("long enough pw", stored)
