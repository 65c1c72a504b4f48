"""Claims on messages: one answer at a time, and the latest edit wins."""

from __future__ import annotations

import asyncio

from bot.claims import MessageClaims


async def test_a_claimed_message_cannot_be_claimed_again_until_released() -> None:
    claims = MessageClaims()
    assert claims.claim(1)
    assert not claims.claim(1)
    assert claims.claim(2), "another message is free"
    claims.release(1)
    assert claims.claim(1)


async def test_an_edit_waits_for_the_answer_at_work_then_takes_the_message() -> None:
    claims = MessageClaims()
    assert claims.claim(1)  # the first answer is being written
    number = claims.note_edit(1)
    waiting = asyncio.create_task(claims.claim_for_edit(1, number))
    await asyncio.sleep(0)
    assert not waiting.done()
    claims.release(1)
    assert await waiting
    assert not claims.claim(1), "the edit holds it now"


async def test_only_the_latest_of_a_burst_of_edits_goes_on() -> None:
    claims = MessageClaims()
    assert claims.claim(1)
    numbers = [claims.note_edit(1) for _ in range(30)]
    tasks = [asyncio.create_task(claims.claim_for_edit(1, n)) for n in numbers]
    await asyncio.sleep(0)
    claims.release(1)
    results = await asyncio.gather(*tasks)
    assert results == [False] * 29 + [True]
    assert claims.is_latest_edit(1, 30) and not claims.is_latest_edit(1, 29)


async def test_an_edit_at_work_learns_that_a_later_one_came() -> None:
    claims = MessageClaims()
    first = claims.note_edit(1)
    assert await claims.claim_for_edit(1, first)
    second = claims.note_edit(1)
    assert not claims.is_latest_edit(1, first)
    later = asyncio.create_task(claims.claim_for_edit(1, second))
    claims.end_edit(1, first)  # not the latest: the count stays for the second
    claims.release(1)
    assert await later
    claims.end_edit(1, second)
    claims.release(1)
    assert claims.note_edit(1) == 1, "a message with no edit at work is forgotten"


async def test_a_public_check_waits_for_the_answer_at_work() -> None:
    claims = MessageClaims()
    assert claims.claim(1)
    waiting = asyncio.create_task(claims.claim_when_free(1))
    await asyncio.sleep(0)
    assert not waiting.done()
    claims.release(1)
    await waiting
    assert not claims.claim(1), "the public check holds it now"
