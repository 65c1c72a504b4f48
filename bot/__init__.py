"""The Discord adapter: turns Discord events into engine calls and reports into Discord messages."""
