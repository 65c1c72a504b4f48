"""The ladder's diff of a corrected config: a unified diff with 3 lines of context, as `git diff`
and `patch` read it, with the marker for a last line that has no line break."""

from __future__ import annotations

from diagnosis.ladder import _diff

CONFIG = "".join(f"key{i}: {i}\n" for i in range(10))


def test_one_changed_line_gets_one_hunk_with_three_lines_of_context() -> None:
    after = CONFIG.replace("key5: 5\n", "key5: 99\n")
    assert _diff(CONFIG, after, "job.yaml") == (
        "--- a/job.yaml\n"
        "+++ b/job.yaml\n"
        "@@ -3,7 +3,7 @@\n"
        " key2: 2\n"
        " key3: 3\n"
        " key4: 4\n"
        "-key5: 5\n"
        "+key5: 99\n"
        " key6: 6\n"
        " key7: 7\n"
        " key8: 8\n"
    )


def test_changes_far_apart_get_a_hunk_each() -> None:
    text = "".join(f"key{i}: {i}\n" for i in range(20))
    after = text.replace("key1: 1\n", "key1: x\n").replace("key18: 18\n", "")
    assert _diff(text, after, "c.yaml") == (
        "--- a/c.yaml\n"
        "+++ b/c.yaml\n"
        "@@ -1,5 +1,5 @@\n"
        " key0: 0\n"
        "-key1: 1\n"
        "+key1: x\n"
        " key2: 2\n"
        " key3: 3\n"
        " key4: 4\n"
        "@@ -16,5 +16,4 @@\n"
        " key15: 15\n"
        " key16: 16\n"
        " key17: 17\n"
        "-key18: 18\n"
        " key19: 19\n"
    )


def test_a_last_line_without_a_line_break_is_marked() -> None:
    assert _diff("a: 1\nb: 2", "a: 1\nb: 3", "c.yaml") == (
        "--- a/c.yaml\n"
        "+++ b/c.yaml\n"
        "@@ -1,2 +1,2 @@\n"
        " a: 1\n"
        "-b: 2\n"
        "\\ No newline at end of file\n"
        "+b: 3\n"
        "\\ No newline at end of file\n"
    )


def test_an_unchanged_text_has_no_diff() -> None:
    assert _diff(CONFIG, CONFIG, "c.yaml") == ""
