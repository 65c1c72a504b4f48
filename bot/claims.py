"""Which messages are being answered right now, and which edit of each message is the latest.

One message gets one answer at a time, whatever brings it (MESSAGE_CREATE, THREAD_CREATE, a RESUME
replay, a mention): the first trigger claims it and the others step back. A moderator's public check
(the message menu, `/oom-check message: public:`) waits for the message instead, then finds its
answer if another trigger gave it one. Edits are different: every edit must be seen, and the last
one must win. Each edit takes the next number of its message; it waits for whatever holds the
message, and gives up as soon as a later edit has arrived, since that one redoes the reply with the
message as it is by then.
"""

from __future__ import annotations

import asyncio


class MessageClaims:
    def __init__(self) -> None:
        self._held: dict[int, asyncio.Event] = {}
        self._edits: dict[int, int] = {}

    def claim(self, message_id: int) -> bool:
        """Take the message at once; False when something else is answering it."""
        if message_id in self._held:
            return False
        self._held[message_id] = asyncio.Event()
        return True

    def release(self, message_id: int) -> None:
        held = self._held.pop(message_id, None)
        if held is not None:
            held.set()

    async def claim_when_free(self, message_id: int) -> None:
        """Take the message once whatever holds it now is done with it."""
        while (held := self._held.get(message_id)) is not None:
            await held.wait()
        self._held[message_id] = asyncio.Event()

    def note_edit(self, message_id: int) -> int:
        """The number of a new edit of the message (1, 2, …)."""
        number = self._edits.get(message_id, 0) + 1
        self._edits[message_id] = number
        return number

    def is_latest_edit(self, message_id: int, number: int) -> bool:
        return self._edits.get(message_id) == number

    async def claim_for_edit(self, message_id: int, number: int) -> bool:
        """Take the message for edit `number` once nothing else holds it; False as soon as a later
        edit has arrived (that one will take it instead)."""
        while self.is_latest_edit(message_id, number):
            held = self._held.get(message_id)
            if held is None:
                self._held[message_id] = asyncio.Event()
                return True
            await held.wait()
        return False

    def end_edit(self, message_id: int, number: int) -> None:
        """Edit `number` is done with: the latest one forgets the message's count."""
        if self.is_latest_edit(message_id, number):
            del self._edits[message_id]
