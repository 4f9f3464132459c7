"""Receipts: the compact JWS (EdDSA, Ed25519) an env signs when an episode ends.

Verifying Ed25519 needs the `cryptography` package (`pip install 'edgegym[receipts]'`): the standard
library has no Ed25519, and signature checks are no place for hand-written curve arithmetic.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

from .errors import ReceiptError

RECEIPT_TYP = "edgegym-receipt+jws"
_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")
_CLAIMS = {
    "env": str,
    "version": str,
    "contentHash": str,
    "episodeId": str,
    "task": dict,
    "steps": int,
    "return": (int, float),
    "finalReward": (int, float),
    "iat": int,
}


def b64url_decode(text: str) -> bytes:
    """Canonical unpadded base64url only, as edgegym writes it."""
    if not _B64URL.match(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode() != text:
        raise ValueError("not canonical base64url")
    return data


def have_verifier() -> bool:
    """Whether receipts can be verified here (the `cryptography` package is installed)."""
    try:
        import cryptography.hazmat.primitives.asymmetric.ed25519  # noqa: F401
    except ImportError:
        return False
    return True


def verify_receipt(jws: str, public_key: dict[str, Any], *, manifest: dict[str, Any] | None = None) -> dict[str, Any]:
    """Checks a receipt's signature against the manifest's `publicKey` (an Ed25519 JWK) and returns its claims.

    Args:
        jws: the compact JWS of the step that ended the episode.
        public_key: the manifest's `publicKey`.
        manifest: when given, the claims must name its env, version and content hash.

    Raises:
        ReceiptError: a bad signature, header or payload, or `cryptography` is not installed.
    """
    try:
        from cryptography.exceptions import InvalidSignature
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    except ImportError as e:
        raise ReceiptError(
            "verifying receipts needs the cryptography package: pip install 'edgegym[receipts]' "
            "(or pass verify_receipts=False)"
        ) from e
    parts = jws.split(".")
    if len(parts) != 3:
        raise ReceiptError("a receipt is a compact JWS of three parts")
    try:
        header = json.loads(b64url_decode(parts[0]))
        payload = b64url_decode(parts[1])
        signature = b64url_decode(parts[2])
        key_bytes = b64url_decode(str(public_key.get("x", "")))
    except (ValueError, binascii.Error, UnicodeDecodeError) as e:
        raise ReceiptError(f"receipt is not a well-formed JWS: {e}") from e
    if not isinstance(header, dict) or header.get("alg") != "EdDSA" or header.get("typ") != RECEIPT_TYP:
        raise ReceiptError(f"receipt header is not an edgegym EdDSA receipt: {header!r}")
    if public_key.get("kty") != "OKP" or public_key.get("crv") != "Ed25519" or len(key_bytes) != 32:
        raise ReceiptError("the manifest's publicKey is not an Ed25519 JWK")
    if public_key.get("kid") and header.get("kid") and header["kid"] != public_key["kid"]:
        raise ReceiptError(f"receipt was signed by key {header['kid']}, the manifest's is {public_key['kid']}")
    try:
        Ed25519PublicKey.from_public_bytes(key_bytes).verify(signature, f"{parts[0]}.{parts[1]}".encode())
    except InvalidSignature as e:
        raise ReceiptError("receipt signature does not verify") from e
    try:
        claims = json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReceiptError("receipt payload is not JSON") from e
    for name, kind in _CLAIMS.items():
        if not isinstance(claims, dict) or not isinstance(claims.get(name), kind) or isinstance(claims.get(name), bool):
            raise ReceiptError(f"receipt payload lacks {name!r} of the right type")
    if manifest is not None:
        for claim, field in (("env", "name"), ("version", "version"), ("contentHash", "contentHash")):
            if claims[claim] != manifest.get(field):
                raise ReceiptError(f"receipt is for {claim} {claims[claim]!r}, the manifest's is {manifest.get(field)!r}")
    return claims
