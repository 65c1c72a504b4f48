"""The memory model: what each component holds on the GPU in each phase of a job, as a range.

Phases, in the order a run meets them: the transformer arriving at its load precision
(`model_load`), then quantized with the text encoder arriving (`quantize`), latent and embedding
caching (`latent_caching`), a preview (`sampling`) and the training step. A phase's total is its
components plus the CUDA context and the caching allocator's reserve, which grows with the rest.
"""

from __future__ import annotations

from typing import NamedTuple

from diagnosis.estimate.arch import Arch, Constants, arch_for, constants
from diagnosis.estimate.job import Job
from diagnosis.record import Record

GIB = float(1 << 30)


class Span(NamedTuple):
    """A range in GiB. A named tuple, not a Record: an estimate makes a hundred of them, and the
    cutting rules ask for several estimates a diagnosis (a tuple is built several times faster)."""

    low: float
    high: float

    def plus(self, other: Span) -> Span:
        return Span(self.low + other.low, self.high + other.high)

    def times(self, factor: float) -> Span:
        return Span(self.low * factor, self.high * factor)

    @property
    def mid(self) -> float:
        return (self.low + self.high) / 2


ZERO = Span(0.0, 0.0)


class Component(Record):
    """One part of a phase's memory: `name` is a catalogue key (weights, text_encoder, vae, adapter,
    activations, overhead); `detail` what the reply may quote beside it (the qtype, the tokens)."""

    name: str
    gib: Span
    detail: dict[str, str | int | float | bool]


class PhaseEstimate(Record):
    phase: str
    components: tuple[Component, ...]

    @property
    def total(self) -> Span:
        out = ZERO
        for c in self.components:
            out = out.plus(c.gib)
        return out

    def get(self, name: str) -> Span:
        return next((c.gib for c in self.components if c.name == name), ZERO)


def _high_then_low(p: PhaseEstimate) -> tuple[float, float]:
    total = p.total
    return (total.high, total.low)


class Estimate(Record):
    job: Job
    arch: Arch
    phases: tuple[PhaseEstimate, ...]

    @property
    def peak(self) -> PhaseEstimate:
        return max(self.phases, key=_high_then_low)

    def phase(self, name: str) -> PhaseEstimate | None:
        return next((p for p in self.phases if p.phase == name), None)


def _gib(params_b: float, bytes_each: float) -> float:
    return params_b * 1e9 * bytes_each / GIB


def _dtype_bytes(c: Constants, dtype: str) -> float:
    return c.bytes_per_weight.get(dtype, 4.0 if dtype.startswith("fp32") or dtype == "float32" else 2.0)


def quantized_bytes(c: Constants, qtype: str, dtype_bytes: float) -> Span:
    """Bytes per weight of a quantized model (a range: the share kept unquantized, the ARA split)."""
    base, _, adapter = qtype.partition("|")
    per = c.bytes_per_weight.get(base.strip().lower(), 1.0)
    if adapter.strip():
        # The adapter's targeted layers go to uintN, the rest to uint8.
        low_share, high_share = c.ara_targeted_share
        per_span = Span(high_share * per + (1 - high_share), low_share * per + (1 - low_share))
    else:
        per_span = Span(per, per)
    u_low, u_high = c.unquantized_share
    return Span(
        (1 - u_low) * per_span.low + u_low * dtype_bytes,
        (1 - u_high) * per_span.high + u_high * dtype_bytes,
    )


def _transformer(c: Constants, job: Job, arch: Arch) -> tuple[Span, Span]:
    """(resident while training, the peak while it arrives): one expert's worth of weights each, the
    other expert parked on the CPU when `low_vram` swaps them."""
    dtype_bytes = _dtype_bytes(c, job.dtype)
    per_param = quantized_bytes(c, job.qtype, dtype_bytes) if job.quantize else Span(dtype_bytes, dtype_bytes)
    on_gpu = 1 if job.low_vram or arch.experts == 1 else arch.experts
    resident = per_param.times(_gib(job.params_b, 1.0) * on_gpu)
    if job.quantize and "|" in job.qtype:
        resident = resident.plus(Span(*c.ara_adapter_gib))
    if job.layer_offloading:
        # The offloaded share of the layers lives in pinned host RAM and streams in, two to four
        # blocks' worth in flight; the rest stays on the GPU.
        kept = 1.0 - job.offload_share
        resident = Span(
            resident.low * (kept + job.offload_share * 2 / arch.blocks),
            resident.high * (kept + job.offload_share * 4 / arch.blocks),
        )
    one_expert = _gib(job.params_b, dtype_bytes)
    if job.layer_offloading or (job.quantize and job.low_vram):
        # Quantized block by block, each block parked as it is done: one block at load precision.
        arriving = resident.plus(Span(one_expert / arch.blocks, 2 * one_expert / arch.blocks))
    elif job.quantize:
        # The whole expert arrives at load precision and is quantized on the GPU; an earlier expert
        # stays quantized beside it.
        earlier = per_param.times(_gib(job.params_b, 1.0) * (on_gpu - 1))
        arriving = Span(one_expert, one_expert).plus(earlier)
    else:
        arriving = resident
    return resident, arriving


def _text_encoder(c: Constants, job: Job, arch: Arch) -> tuple[Span, Span]:
    """(resident, the peak while it arrives)."""
    dtype_bytes = _dtype_bytes(c, job.dtype)
    if job.quantize_te and not job.train_te:
        per = quantized_bytes(c, job.qtype_te, dtype_bytes)
    else:
        per = Span(dtype_bytes, dtype_bytes)
    resident = per.times(_gib(arch.te_params_b, 1.0))
    if job.quantize_te and not job.train_te and arch.te_at_once_b is not None:
        # One encoder at its load precision, the ones quantized before it already small.
        rest = per.times(_gib(max(0.0, arch.te_params_b - arch.te_at_once_b), 1.0))
        full = rest.plus(Span(*(2 * (_gib(arch.te_at_once_b, dtype_bytes),))))
    else:
        full = Span(*(2 * (_gib(arch.te_params_b, dtype_bytes),)))
    if job.layer_offloading and job.te_offload_share > 0:
        # Its offloaded layers stream in from host RAM as the transformer's do (a few in flight).
        on_gpu = 1.0 - job.te_offload_share + job.te_offload_share * c.te_offload_in_flight
        resident, full = resident.times(on_gpu), full.times(on_gpu)
    # The encoder comes to the GPU at its load precision and is quantized there, low_vram or not
    # (AI Toolkit's Qwen-Image and Wan loaders: `.to(device)`, then `quantize`).
    return resident, full


def _adapter(c: Constants, job: Job, arch: Arch) -> Span:
    state = c.optimizer_state_bytes.get(job.optimizer, c.optimizer_state_bytes["default"])
    if job.full_finetune:
        # The base weights are trained: their gradient at their own precision, the optimizer's state.
        grad = _dtype_bytes(c, job.dtype)
        return Span(_gib(job.params_b, grad + state), _gib(job.params_b, grad + state))
    per_rank = arch.lora_per_rank_m or c.lora_per_rank_ratio * job.params_b * 1e3 / arch.hidden
    params = Span(per_rank, per_rank).times(job.rank * 1e-3)  # billions
    if job.network_type == "lokr":
        params = Span(params.low * c.lokr_factor_params[0], params.high * c.lokr_factor_params[1])
    return params.times(_gib(1.0, c.trained_bytes + state))


def image_tokens(arch: Arch, side: int, frames: int = 1) -> int:
    per_frame = max(1, side // arch.px_per_token) ** 2
    latent_frames = 1 + (max(1, frames) - 1) // max(1, arch.t_compress)
    return per_frame * latent_frames


def train_tokens(job: Job, arch: Arch) -> int:
    """Tokens of one sample in the training step's sequence: the image (all its latent frames), the
    control images that join the sequence, the text."""
    image = image_tokens(arch, job.bucket, job.frames)
    control = job.control_images * image_tokens(arch, job.bucket) if arch.control_tokens else 0
    return image + control + arch.text_tokens


def _activations(c: Constants, job: Job, arch: Arch) -> Span:
    n = job.batch * train_tokens(job, arch) * arch.hidden
    if job.gc:
        low = n * (arch.blocks * c.checkpoint_bytes + c.recompute_blocks * c.block_bytes[0])
        high = n * (arch.blocks * c.checkpoint_bytes + c.recompute_blocks * c.block_bytes[1])
    else:
        low, high = n * arch.blocks * c.block_bytes[0], n * arch.blocks * c.block_bytes[1]
    return Span(low / GIB, high / GIB)


def _megapixels(width: int, height: int) -> float:
    return width * height / 1e6


def _vae(c: Constants, job: Job, arch: Arch, per_mp: tuple[float, float], mp: float, frames: int) -> Span:
    weights = _gib(arch.vae_params_b, _dtype_bytes(c, job.dtype))
    # A video VAE works through the clip a few latent frames at a time.
    latent = 1 + (max(1, frames) - 1) // max(1, arch.t_compress)
    work = Span(*per_mp).times(mp * min(latent, 4))
    if job.low_vram:
        work = Span(min(work.low, per_mp[0]), min(work.high, per_mp[1]))  # tiled: a megapixel at a time
    return Span(weights, weights).plus(work)


def _sampling(c: Constants, job: Job, arch: Arch) -> tuple[Span, Span]:
    """(the preview's transformer working set, its VAE decode)."""
    side = int((job.sample_width * job.sample_height) ** 0.5)
    tokens = image_tokens(arch, side, job.sample_frames) + arch.text_tokens
    images = 2 if arch.cfg_sample else 1
    n = tokens * arch.hidden * images
    work = Span(n * c.sample_block_bytes[0] / GIB, n * c.sample_block_bytes[1] / GIB)
    vae = _vae(
        c,
        job,
        arch,
        c.vae_decode_gib_per_mp,
        _megapixels(job.sample_width, job.sample_height),
        job.sample_frames,
    )
    return work, vae


_TRANSIENT = frozenset({"activations", "vae"})


def _phase(c: Constants, name: str, parts: list[Component]) -> PhaseEstimate:
    kept = [p for p in parts if p.gib.high > 0]
    overhead = Span(*c.cuda_context_gib)
    for p in kept:
        share = c.allocator_share if p.name in _TRANSIENT else c.static_share
        overhead = overhead.plus(Span(p.gib.low * share[0], p.gib.high * share[1]))
    return PhaseEstimate(name, (*kept, Component("overhead", overhead, {})))


def estimate(job: Job, arch: Arch | None = None) -> Estimate | None:
    """Every phase's components for `job`; None when its family's architecture is not in the table."""
    arch = arch or arch_for(job.family, job.label)
    if arch is None:
        return None
    c = constants()
    weights, arriving = _transformer(c, job, arch)
    te, te_arriving = _text_encoder(c, job, arch)
    adapter = _adapter(c, job, arch)
    te_resident = job.train_te or not (job.unload_te or job.cache_te)
    qdetail: dict[str, str | int | float | bool] = {
        "qtype": job.qtype.partition("|")[0] if job.quantize else job.dtype,
        "offloaded": job.layer_offloading,
    }
    w = Component("weights", weights, qdetail)
    # What the weights are while they arrive: the load precision unless they are quantized block by block.
    arriving_as = (
        str(qdetail["qtype"]) if arriving == weights or job.low_vram or job.layer_offloading else job.dtype
    )
    enc_mp = _megapixels(job.bucket, job.bucket)
    phases = [
        _phase(c, "model_load", [Component("weights", arriving, {**qdetail, "qtype": arriving_as})]),
        # The text encoder arrives and is quantized after the transformer; with low_vram the
        # transformer waits on the CPU meanwhile.
        _phase(c, "quantize", [*([] if job.low_vram else [w]), Component("text_encoder", te_arriving, {})]),
        _phase(
            c,
            "latent_caching",
            [
                w,
                # Embeddings to cache are made while the text encoder arrives (the phase above); here
                # it is on the card only if it stays for the whole run.
                Component("text_encoder", te if te_resident else ZERO, {}),
                Component("vae", _vae(c, job, arch, c.vae_encode_gib_per_mp, enc_mp, job.frames), {}),
            ],
        ),
    ]
    if job.sampling:
        work, decode = _sampling(c, job, arch)
        phases.append(
            _phase(
                c,
                "sampling",
                [
                    w,
                    Component("text_encoder", te if te_resident else ZERO, {}),
                    Component("adapter", adapter, {}),
                    Component(
                        "activations",
                        work,
                        {"side": max(job.sample_width, job.sample_height), "frames": job.sample_frames},
                    ),
                    Component("vae", decode, {}),
                ],
            )
        )
    act = _activations(c, job, arch)
    vae_train = (
        ZERO
        if job.latents_cached
        else _vae(c, job, arch, c.vae_encode_gib_per_mp, enc_mp * job.batch, job.frames)
    )
    phases.append(
        _phase(
            c,
            "training_step",
            [
                w,
                Component("text_encoder", te if te_resident else ZERO, {}),
                Component("vae", vae_train, {}),
                Component("adapter", adapter, {"full": job.full_finetune}),
                Component(
                    "activations",
                    act,
                    {"side": job.bucket, "batch": job.batch, "frames": job.frames, "gc": job.gc},
                ),
            ],
        )
    )
    return Estimate(job, arch, tuple(phases))
