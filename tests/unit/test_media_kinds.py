"""What media really are: the type sniffed from the bytes, the kinds of send each type may be,
the size limits, and PNG/JPEG stickers converted to WebP."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from gateway.media import kinds
from gateway.media.errors import MediaKindMismatch, MediaTooLarge
from gateway.media.limits import (
    INLINE_MAX_BYTES,
    MB,
    STATUS_VIDEO_MAX_BYTES,
    URL_DOCUMENT_MAX_BYTES,
    URL_MAX_BYTES,
)


def _image(fmt: str, size: tuple[int, int] = (40, 20)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(out, format=fmt)
    return out.getvalue()


SAMPLES = {
    "image/jpeg": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00",
    "image/png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "image/gif": b"GIF89a\x01\x00\x01\x00",
    "image/webp": b"RIFF\x24\x00\x00\x00WEBPVP8 ",
    "video/mp4": b"\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00",
    "video/3gpp": b"\x00\x00\x00\x18ftyp3gp4\x00\x00\x00\x00",
    "audio/mp4": b"\x00\x00\x00\x20ftypM4A \x00\x00\x00\x00",
    "audio/ogg": b"OggS\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00OpusHead",
    "audio/mpeg": b"ID3\x04\x00\x00\x00\x00\x00\x00",
    "application/pdf": b"%PDF-1.7\n%\xe2\xe3\xcf\xd3",
    "application/zip": b"PK\x03\x04\x14\x00\x06\x00",
}


@pytest.mark.parametrize(("mimetype", "data"), SAMPLES.items())
def test_the_magic_number_names_the_type(mimetype: str, data: bytes) -> None:
    # Given the first bytes of a file of a known type
    # When they are sniffed
    # Then the type is the one the bytes say
    assert kinds.sniff(data) == mimetype


def test_an_mp3_frame_without_a_tag_is_mpeg_audio_and_a_jpeg_is_not() -> None:
    # Given an MP3 starting with a bare frame sync, and a real JPEG (also starting 0xFF)
    # When both are sniffed
    # Then each is what it is
    assert kinds.sniff(b"\xff\xfb\x90\x64\x00") == "audio/mpeg"
    assert kinds.sniff(_image("JPEG")) == "image/jpeg"


def test_unknown_bytes_have_no_type() -> None:
    assert kinds.sniff(b"hello, world") is None
    assert kinds.sniff(b"") is None


@pytest.mark.parametrize(
    ("kind", "mimetype"),
    [
        ("image", "image/jpeg"),
        ("image", "image/png"),
        ("image", "image/webp"),
        ("video", "video/mp4"),
        ("video", "video/3gpp"),
        ("audio", "audio/ogg"),
        ("audio", "audio/mpeg"),
        ("audio", "audio/mp4"),
        ("sticker", "image/webp"),
    ],
)
def test_each_kind_takes_its_types_as_they_are(kind: kinds.Kind, mimetype: str) -> None:
    # Given bytes of a type the kind accepts
    data = SAMPLES[mimetype]

    # When they are checked for that kind of send
    checked = kinds.check(kind, data, "data", declared="application/octet-stream")

    # Then they pass unchanged, with the sniffed type (not the declared one)
    assert checked == kinds.CheckedMedia(data, mimetype)


@pytest.mark.parametrize(
    ("kind", "mimetype"),
    [
        ("image", "application/pdf"),
        ("image", "video/mp4"),
        ("video", "image/png"),
        ("audio", "video/mp4"),
        ("sticker", "image/gif"),
        ("sticker", "audio/ogg"),
    ],
)
def test_bytes_of_another_kind_are_refused_with_what_they_are(kind: kinds.Kind, mimetype: str) -> None:
    # Given bytes whose type the kind does not accept, declared as the kind expects
    # When they are checked
    # Then they are refused, naming what was expected and what was found
    with pytest.raises(MediaKindMismatch, match=f"{kind} must be .*; got {mimetype} data"):
        kinds.check(kind, SAMPLES[mimetype], "url", declared="image/jpeg")


def test_unknown_bytes_are_not_an_image() -> None:
    with pytest.raises(MediaKindMismatch, match="unknown type"):
        kinds.check("image", b"just some text", "data", declared="image/png")


def test_a_document_may_be_anything_and_keeps_a_known_or_declared_type() -> None:
    # Given a PDF, and text the bytes say nothing about
    # When both are checked as documents
    pdf = kinds.check("document", SAMPLES["application/pdf"], "url", declared="text/plain")
    text = kinds.check("document", b"a,b\n1,2\n", "url", declared="text/csv; charset=utf-8")
    blob = kinds.check("document", b"\x00\x01", "data")

    # Then the sniffed type wins, else the declared one, else octet-stream
    assert pdf.mimetype == "application/pdf"
    assert text.mimetype == "text/csv"
    assert blob.mimetype == "application/octet-stream"


def test_png_and_jpeg_stickers_become_512_square_webp() -> None:
    for fmt in ("PNG", "JPEG"):
        # Given a small wide image
        data = _image(fmt, (100, 50))

        # When it is checked as a sticker
        checked = kinds.check("sticker", data, "data")

        # Then it is a valid 512 x 512 WebP, the image scaled to fit
        assert checked.mimetype == "image/webp"
        assert kinds.sniff(checked.data) == "image/webp"
        with Image.open(io.BytesIO(checked.data)) as converted:
            assert converted.format == "WEBP"
            assert converted.size == (512, 512)
            assert converted.getpixel((256, 256))[:3] != (0, 0, 0)  # the image, centered
            assert converted.getpixel((256, 5))[3] == 0  # transparent above and below


def test_a_broken_png_sticker_is_refused_as_unreadable() -> None:
    with pytest.raises(MediaKindMismatch, match="could not be read"):
        kinds.check("sticker", SAMPLES["image/png"], "data")


def test_limits_depend_on_how_the_media_came_and_their_kind() -> None:
    # Given each way media arrive
    # When the limits are asked for
    # Then inline data are capped at 4 MB, URLs at 16 MB, documents at 64 MB, status videos 16 MB
    assert kinds.max_bytes("document", "data") == INLINE_MAX_BYTES == 4 * MB
    assert kinds.max_bytes("image", "url") == URL_MAX_BYTES == 16 * MB
    assert kinds.max_bytes("document", "url") == URL_DOCUMENT_MAX_BYTES == 64 * MB
    assert kinds.max_bytes("video", "url", status=True) == STATUS_VIDEO_MAX_BYTES == 16 * MB


def test_inline_media_over_4_mb_are_refused_with_the_way_out() -> None:
    # Given 4 MB and one byte of inline data
    data = SAMPLES["image/jpeg"] + bytes(INLINE_MAX_BYTES)

    # When they are checked
    # Then the caller is told to use url
    with pytest.raises(MediaTooLarge, match="use url for media over 4 MB"):
        kinds.check("image", data, "data")


def test_url_media_over_16_mb_are_refused_unless_a_document() -> None:
    # Given the size of 16 MB and one byte
    size = URL_MAX_BYTES + 1

    # When it is checked for an image and for a document from a URL
    # Then the image is refused and the document passes
    with pytest.raises(MediaTooLarge, match="over 16 MB"):
        kinds.check_size(size, "image", "url")
    kinds.check_size(size, "document", "url")
