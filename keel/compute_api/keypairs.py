"""Key pairs: import (fingerprint of an ssh public key or an x509
certificate), generate (before 2.92), list/show/delete per user, with the
``key_pairs`` quota checked before and after creating."""
import base64
import binascii
import datetime
import hashlib

from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from cryptography.x509.oid import NameOID

from keel.compute_api import quota
from keel.conf import CONF
from keel import exception
from keel import objects
from keel.objects import keypair as keypair_obj

SSH = keypair_obj.KEYPAIR_TYPE_SSH
X509 = keypair_obj.KEYPAIR_TYPE_X509


def _colons(hexdigest):
    return ":".join(hexdigest[i:i + 2] for i in range(0, len(hexdigest), 2))


def ssh_fingerprint(public_key):
    """MD5 of the key blob, as ``aa:bb:...`` (what Nova stores)."""
    try:
        serialization.load_ssh_public_key(public_key.encode("utf-8"))
        blob = base64.b64decode(public_key.split(" ")[1])
    except Exception:  # noqa: BLE001 - any parse failure is bad input
        raise exception.InvalidKeypair(
            reason="failed to generate fingerprint")
    return _colons(hashlib.md5(blob, usedforsecurity=False).hexdigest())


def x509_fingerprint(pem):
    try:
        cert = x509.load_pem_x509_certificate(pem.encode("utf-8"))
    except (ValueError, TypeError, binascii.Error) as exc:
        raise exception.InvalidKeypair(
            reason="failed to generate X509 fingerprint. Error message: "
                   f"{exc}")
    return _colons(binascii.hexlify(
        cert.fingerprint(hashes.SHA1())).decode("ascii"))


def fingerprint(public_key, key_type):
    return x509_fingerprint(public_key) if key_type == X509 \
        else ssh_fingerprint(public_key)


def _private_pem(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption()).decode("ascii")


def generate_ssh(bits=2048):
    """``(private PEM, "ssh-rsa ... Generated-by-Nova", fingerprint)``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH,
        serialization.PublicFormat.OpenSSH).decode("ascii")
    public = f"{public} Generated-by-Nova"
    return _private_pem(key), public, ssh_fingerprint(public)


def generate_x509(user_id, bits=2048):
    """A self-signed client certificate for ``user_id`` (WinRM style)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=bits)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user_id)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    pem = cert.public_bytes(serialization.Encoding.PEM).decode("ascii")
    return _private_pem(key), pem, x509_fingerprint(pem)


def _check_quota(context, user_id):
    try:
        quota.check_deltas(context, {"key_pairs": 1}, context.project_id,
                           user_id=user_id)
    except exception.OverQuota:
        raise exception.KeypairLimitExceeded()


def _store(context, user_id, name, public_key, fp, key_type):
    keypair = objects.KeyPair(context, user_id=user_id, name=name,
                              public_key=public_key, fingerprint=fp,
                              type=key_type)
    keypair.create()
    if CONF.quota.recheck_quota:
        # A parallel request may have taken the last slot meanwhile.
        try:
            quota.check_deltas(context, {"key_pairs": 0},
                               context.project_id, user_id=user_id)
        except exception.OverQuota:
            keypair.destroy()
            raise exception.KeypairLimitExceeded()
    return keypair


def import_key_pair(context, user_id, name, public_key, key_type=SSH):
    _check_quota(context, user_id)
    fp = fingerprint(public_key, key_type)
    return _store(context, user_id, name, public_key, fp, key_type)


def create_key_pair(context, user_id, name, key_type=SSH):
    """``(keypair, private key)`` with a newly generated key."""
    _check_quota(context, user_id)
    if key_type == X509:
        private, public, fp = generate_x509(user_id)
    else:
        private, public, fp = generate_ssh()
    return _store(context, user_id, name, public, fp, key_type), private


def get_key_pairs(context, user_id, limit=None, marker=None):
    return objects.KeyPairList.get_by_user(context, user_id, limit=limit,
                                           marker=marker)


def get_key_pair(context, user_id, name):
    return objects.KeyPair.get_by_name(context, user_id, name)


def delete_key_pair(context, user_id, name):
    objects.KeyPair.destroy_by_name(context, user_id, name)
