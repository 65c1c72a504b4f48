"""The immutable records are named tuples (start-up, issue #8): what that must not change."""

from __future__ import annotations

from diagnosis.models import Piece, PieceKind, with_text


def test_with_text_changes_the_text_and_nothing_else() -> None:
    piece = Piece(PieceKind.CONFIG_JSON, "{}", "message 2", 3, 7, True, "json", True, "\r\n")
    copy = with_text(piece, '{"a": 1}')
    assert copy.text == '{"a": 1}'
    assert copy._replace(text=piece.text) == piece
    assert type(copy) is Piece
