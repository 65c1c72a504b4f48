"""A realistic AI Toolkit console log of any size, ending in a CUDA OOM.

The lines follow the trainer's own output (config reference §5): start-up banner, model loading and
quantization, dataset buckets, latent caching bars, the baseline sample, then the training progress
bar redrawn with carriage returns, periodic saves and sampling bars, and finally the fatal OOM with
its traceback. `python -m benchmarks.genlog OUT --mib 10` writes one.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

MiB = 1024 * 1024

_HEAD = """Running 1 job
{hashes}
# Running job: {name}
{hashes}

Running  1 process
Loading Flux model
Loading transformer
Quantizing transformer
Loading VAE
Loading T5
Quantizing T5
Loading CLIP
Making pipe
Preparing Model
Model Loaded
create LoRA network. base dim (rank): 16, alpha: 16
create LoRA for Text Encoder: 0 modules.
create LoRA for U-Net: 494 modules.
Dataset: /workspace/datasets/{name}
  -  Preprocessing image dimensions
  -  Found 120 images
Bucket sizes for /workspace/datasets/{name}:
1024x1024: 48 files
832x1216: 40 files
1216x832: 32 files
3 buckets made
Caching latents for /workspace/datasets/{name}
 - Saving latents to disk
"""

# The fatal OOM, the result banner and the traceback, as the bundled example log ends.
_EXAMPLE_LOG = (Path(__file__).resolve().parent.parent / "examples" / "flux_lora_24gb_oom.log").read_text(
    "utf-8"
)
_TAIL = "Error running job:" + _EXAMPLE_LOG.split("Error running job:", 1)[1]


def _bar(width: int, done: int, total: int) -> str:
    filled = width * done // max(total, 1)
    return "█" * filled + " " * (width - filled)


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


def _caching(total: int) -> str:
    redraws = [
        f"Caching latents to disk: {100 * i // total:3d}%|{_bar(10, i, total)}| {i}/{total} "
        f"[00:{i // 3:02d}<00:{(total - i) // 3:02d}, {3.1 + (i % 7) / 10:.2f}it/s]"
        for i in range(total + 1)
    ]
    return "\r".join(redraws) + "\n"


def _sampling(prompts: int, rng: random.Random) -> str:
    redraws = [
        f"Generating Images: {100 * i // prompts:3d}%|{_bar(10, i, prompts)}| {i}/{prompts} "
        f"[{_clock(i * 20)}<{_clock((prompts - i) * 20)}, {20 + rng.random():.2f}s/it]"
        for i in range(prompts + 1)
    ]
    return "\r".join(redraws) + "\n"


def generate_log(size: int, *, seed: int = 0, name: str = "my_flux_lora_v1") -> str:
    """A log of about `size` bytes (UTF-8) whose last event is a fatal CUDA OOM."""
    rng = random.Random(seed)
    hashes = "#" * (len(name) + 16)
    parts = [
        _HEAD.format(name=name, hashes=hashes),
        _caching(120),
        "Generating baseline samples before training\n",
    ]
    parts.append(_sampling(4, rng))
    size_so_far = sum(len(p.encode("utf-8")) for p in parts)
    budget = size - len(_TAIL.encode("utf-8"))
    total_steps = max(3000, budget // 100)  # one redraw per step, about 120 bytes each
    step = 0
    line: list[str] = []
    while size_so_far < budget:
        step += 1
        elapsed = step * 1.78
        remaining = (total_steps - step) * 1.78
        lr, loss = 1e-4, 0.3 + rng.random() * 0.2
        redraw = (
            f"{name}: {100 * step // total_steps:3d}%|{_bar(10, step, total_steps)}| {step}/{total_steps} "
            f"[{_clock(elapsed)}<{_clock(remaining)},  {1.7 + rng.random() / 10:.2f}s/it, "
            f"lr: {lr:.1e} loss: {loss:.3e}]"
        )
        line.append(redraw)
        size_so_far += len(redraw.encode("utf-8")) + 1
        if step % 250 == 0:
            chunk = (
                "\r".join(line) + f"\nSaving at step {step}\nSaved checkpoint to /workspace/output/{name}/"
            )
            chunk += f"{name}_{step:09d}.safetensors\n"
            chunk += _sampling(4, rng)
            parts.append(chunk)
            size_so_far += len(chunk.encode("utf-8")) - sum(len(r.encode("utf-8")) + 1 for r in line)
            line = []
    parts.append("\r".join(line))
    parts.append(_TAIL)
    return "".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--mib", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.out.write_text(generate_log(int(args.mib * MiB), seed=args.seed), encoding="utf-8")


if __name__ == "__main__":
    main()
