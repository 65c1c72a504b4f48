"""Every OOM message format of oom-message-formats.md: its literal text → kind and numbers.

The texts are the formats' own wording (real examples where the document quotes one); each case
checks the kind and every number the message carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from diagnosis.logreader import read_log
from diagnosis.models import OomKind, OtherProcess, Piece, PieceKind

KIB = 1024
MIB = 1024**2
GIB = 1024**3


def mib(value: float) -> int:
    return round(value * MIB)


def gib(value: float) -> int:
    return round(value * GIB)


@dataclass
class Case:
    id: str
    text: str
    kind: OomKind
    numbers: dict[str, Any] = field(default_factory=dict)


HINT = (
    " If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"
    " to avoid fragmentation.  See documentation for Memory Management  "
    "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
)

CASES = [
    Case(
        "current-template-other-processes",
        "Error running job: CUDA out of memory. Tried to allocate 48.00 MiB. GPU 0 has a total capacity of "
        "47.53 GiB of which 43.94 MiB is free. Process 654925 has 5.68 GiB memory in use. Process 706098 has "
        "7.62 GiB memory in use. Including non-PyTorch memory, this process has 34.17 GiB memory in "
        "use. Of the "
        "allocated memory 33.51 GiB is allocated by PyTorch, and 351.95 MiB is reserved by PyTorch but "
        "unallocated." + HINT,
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(48),
            "device_index": 0,
            "total_bytes": gib(47.53),
            "free_bytes": mib(43.94),
            "other_processes": [OtherProcess(654925, gib(5.68)), OtherProcess(706098, gib(7.62))],
            "process_bytes": gib(34.17),
            "allocated_bytes": gib(33.51),
            "reserved_unallocated_bytes": mib(351.95),
            "non_pytorch_bytes": gib(34.17) - gib(33.51) - mib(351.95),
        },
    ),
    Case(
        "current-template-cut-mid-sentence",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 MiB. GPU 0 has a total capacity "
        "of 39.38 GiB of which 3.81 MiB is free. Process 3774011 has 38.88 GiB memory in use. Including "
        "non-PyTorch memory, this process has 494.00 MiB memory in use. Of the allocated memory 62.54 MiB is "
        "alloc...",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(24),
            "total_bytes": gib(39.38),
            "free_bytes": mib(3.81),
            "other_processes": [OtherProcess(3774011, gib(38.88))],
            "process_bytes": mib(494),
            "allocated_bytes": None,
            "reserved_unallocated_bytes": None,
        },
    ),
    Case(
        "current-template-windows-no-processes",
        "CUDA out of memory. Tried to allocate 2.03 GiB. GPU 0 has a total capacity of 31.84 GiB of "
        "which 0 bytes "
        "is free. Of the allocated memory 29.69 GiB is allocated by PyTorch, and 138.42 MiB is res...",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": gib(2.03),
            "total_bytes": gib(31.84),
            "free_bytes": 0,
            "other_processes": [],
            "process_bytes": None,
            "allocated_bytes": gib(29.69),
            "reserved_unallocated_bytes": None,
        },
    ),
    Case(
        "newer-documentation-link",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.27 GiB. GPU 0 has a total "
        "capacity of "
        "31.36 GiB of which 742.19 MiB is free. Including non-PyTorch memory, this process has 30.62 "
        "GiB memory "
        "in use. Of the allocated memory 29.48 GiB is allocated by PyTorch, and 611.40 MiB is reserved "
        "by PyTorch "
        "but unallocated. If reserved but unallocated memory is large try setting "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
        "for Memory "
        "Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html"
        "#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": gib(1.27),
            "total_bytes": gib(31.36),
            "free_bytes": mib(742.19),
            "process_bytes": gib(30.62),
            "allocated_bytes": gib(29.48),
            "reserved_unallocated_bytes": mib(611.40),
        },
    ),
    Case(
        "pytorch-1.0-cached",
        "RuntimeError: CUDA out of memory. Tried to allocate 310.00 MiB (GPU 0; 7.80 GiB total capacity; "
        "4.05 GiB already allocated; 102.44 MiB free; 404.92 MiB cached)",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(310),
            "device_index": 0,
            "total_bytes": gib(7.80),
            "allocated_bytes": gib(4.05),
            "free_bytes": mib(102.44),
            "reserved_unallocated_bytes": mib(404.92),
        },
    ),
    Case(
        "pytorch-1.4-reserved-in-total",
        "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 7.93 GiB total capacity; "
        "6.72 GiB already allocated; 14.81 MiB free; 6.85 GiB reserved in total by PyTorch)",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(20),
            "device_index": 1,
            "total_bytes": gib(7.93),
            "allocated_bytes": gib(6.72),
            "free_bytes": mib(14.81),
            "reserved_unallocated_bytes": gib(6.85) - gib(6.72),
        },
    ),
    Case(
        "pytorch-1.10-max-split-size-hint",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 498.00 MiB (GPU 0; 10.92 "
        "GiB total "
        "capacity; 9.22 GiB already allocated; 401.81 MiB free; 9.78 GiB reserved in total by PyTorch) If "
        "reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See "
        "documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(498),
            "total_bytes": gib(10.92),
            "allocated_bytes": gib(9.22),
            "free_bytes": mib(401.81),
            "reserved_unallocated_bytes": gib(9.78) - gib(9.22),
        },
    ),
    Case(
        "pytorch-2.1-capacty-typo",
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a "
        "total capacty "
        "of 44.53 GiB of which 15.25 MiB is free. Including non-PyTorch memory, this process has 44.51 "
        "GiB memory "
        "in use. Of the allocated memory 43.80 GiB is allocated by PyTorch, and 217.37 MiB is reserved "
        "by PyTorch "
        "but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
        "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF",
        OomKind.CUDA_ALLOC,
        {
            "tried_bytes": mib(20),
            "device_index": 0,
            "total_bytes": gib(44.53),
            "free_bytes": mib(15.25),
            "process_bytes": gib(44.51),
            "allocated_bytes": gib(43.80),
            "reserved_unallocated_bytes": mib(217.37),
        },
    ),
    Case(
        "blank-device-index",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU  has a total "
        "capacity of "
        "95.00 GiB of which 6.50 MiB is free.",
        OomKind.CUDA_ALLOC,
        {"tried_bytes": gib(1.5), "device_index": None, "total_bytes": gib(95), "free_bytes": mib(6.5)},
    ),
    Case(
        "message-cut-after-gpu",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU ",
        OomKind.CUDA_ALLOC,
        {"tried_bytes": mib(20), "total_bytes": None, "device_index": None},
    ),
    Case(
        "own-process-listed-in-container",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total "
        "capacity of "
        "47.54 GiB of which 81.12 MiB is free. Process 1381433 has 47.43 GiB memory in use. Of the allocated "
        "memory 46.90 GiB is allocated by PyTorch, and 221.50 MiB is reserved by PyTorch but unallocated."
        + HINT,
        OomKind.CUDA_ALLOC,
        {
            "other_processes": [OtherProcess(1381433, gib(47.43))],
            "process_bytes": None,
            "allocated_bytes": gib(46.90),
            "non_pytorch_bytes": None,
        },
    ),
    Case(
        "allowed-and-private-pools",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 256.00 MiB. GPU 0 has a total "
        "capacity of "
        "23.99 GiB of which 12.00 MiB is free. Including non-PyTorch memory, this process has 10.00 GiB "
        "memory in "
        "use. 20.00 GiB allowed; Of the allocated memory 8.00 GiB is allocated by PyTorch, with 1.00 GiB "
        "allocated in private pools (e.g., CUDA Graphs), and 512.00 MiB is reserved by PyTorch but "
        "unallocated." + HINT,
        OomKind.CUDA_ALLOC,
        {
            "process_bytes": gib(10),
            "allocated_bytes": gib(8),
            "reserved_unallocated_bytes": mib(512),
            "non_pytorch_bytes": gib(10) - gib(8) - mib(512),
        },
    ),
    Case(
        "windows-spill-allocated-beyond-card",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 90.00 MiB. GPU 0 has a total "
        "capacity of "
        "15.99 GiB of which 0 bytes is free. Of the allocated memory 29.53 GiB is allocated by PyTorch, and "
        "1.12 GiB is reserved by PyTorch but unallocated." + HINT,
        OomKind.CUDA_ALLOC,
        {"total_bytes": gib(15.99), "free_bytes": 0, "allocated_bytes": gib(29.53)},
    ),
    Case(
        "absurd-request",
        "RuntimeError: CUDA out of memory. Tried to allocate 130206.04 GiB (GPU 0; 23.69 GiB total capacity; "
        "2.17 GiB already allocated; 19.67 GiB free; 2.20 GiB reserved in total by PyTorch)",
        OomKind.CUDA_ALLOC,
        {"tried_bytes": gib(130206.04), "total_bytes": gib(23.69)},
    ),
    Case(
        "more-than-1eb",
        "RuntimeError: CUDA out of memory. Tried to allocate more than 1EB memory.",
        OomKind.CUDA_ALLOC,
        {"tried_bytes": None},
    ),
    Case(
        "cuda-malloc-async",
        "torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
        "Currently allocated     : 23.12 GiB\n"
        "Requested               : 1.00 GiB\n"
        "Device limit            : 23.99 GiB\n"
        "Free (according to CUDA): 18.00 MiB\n"
        "PyTorch limit (set by user-supplied memory fraction)\n"
        "                        : 17179869184.00 GiB\n",
        OomKind.CUDA_ASYNC_ALLOC,
        {
            "device_index": 0,
            "allocated_bytes": gib(23.12),
            "tried_bytes": gib(1),
            "total_bytes": gib(23.99),
            "free_bytes": mib(18),
        },
    ),
    Case(
        "cuda-malloc-async-comfyui",
        "!!! Exception during processing !!! Allocation on device 1 would exceed allowed memory. (out "
        "of memory)",
        OomKind.CUDA_ASYNC_ALLOC,
        {"device_index": 1},
    ),
    Case(
        "cuda-malloc-async-cut-headline",
        "torch.OutOfMemoryError: Allocation on device ",
        OomKind.CUDA_ASYNC_ALLOC,
    ),
    Case(
        "xpu",
        "torch.OutOfMemoryError: XPU out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of "
        "15.11 GiB of which 1.02 GiB is free. Of the allocated memory 12.55 GiB is allocated by PyTorch, and "
        "1.25 GiB is reserved by PyTorch but unallocated. Please use `empty_cache` to release all unoccupied "
        "cached memory.",
        OomKind.XPU,
        {
            "tried_bytes": gib(2),
            "total_bytes": gib(15.11),
            "free_bytes": gib(1.02),
            "allocated_bytes": gib(12.55),
            "reserved_unallocated_bytes": gib(1.25),
        },
    ),
    Case(
        "hip",
        "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 124.00 MiB. GPU 0 has a total "
        "capacity of "
        "19.94 GiB of which 554.47 MiB is free. Of the allocated memory 15.87 GiB is allocated by "
        "PyTorch, and "
        "165.29 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
        "setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
        "documentation for "
        "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
        OomKind.HIP,
        {
            "tried_bytes": mib(124),
            "total_bytes": gib(19.94),
            "free_bytes": mib(554.47),
            "allocated_bytes": gib(15.87),
            "reserved_unallocated_bytes": mib(165.29),
        },
    ),
    Case(
        "hip-rx6950",
        "HIP out of memory. Tried to allocate 80.00 MiB. GPU 0 has a total capacity of 15.98 GiB of which "
        "84.00 MiB is free. ...",
        OomKind.HIP,
        {"tried_bytes": mib(80), "total_bytes": gib(15.98), "free_bytes": mib(84)},
    ),
    Case(
        "mps-gb-units",
        "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: 172.98 MB, max "
        "allowed: 9.07 GB). Tried to allocate 6.25 MB on private pool. Use "
        "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 "
        "to disable upper limit for memory allocations (may cause system failure).",
        OomKind.MPS,
        {
            "allocated_bytes": gib(8.89),
            "non_pytorch_bytes": mib(172.98),
            "total_bytes": gib(9.07),
            "tried_bytes": mib(6.25),
        },
    ),
    Case(
        "mps-gib-units",
        "RuntimeError: MPS backend out of memory (MPS allocated: 45.18 GiB, other allocations: 719.81 "
        "MiB, max "
        "allowed: 45.90 GiB). Tried to allocate 23.44 MiB on private pool. ...",
        OomKind.MPS,
        {
            "allocated_bytes": gib(45.18),
            "non_pytorch_bytes": mib(719.81),
            "total_bytes": gib(45.90),
            "tried_bytes": mib(23.44),
        },
    ),
    Case(
        "mps-shared-pool-no-watermark",
        "RuntimeError: MPS backend out of memory (MPS allocated: 20.00 GiB, other allocations: 1.00 "
        "GiB). Tried "
        "to allocate 2.00 GiB on shared pool.",
        OomKind.MPS,
        {"allocated_bytes": gib(20), "non_pytorch_bytes": gib(1), "total_bytes": None, "tried_bytes": gib(2)},
    ),
    Case(
        "mps-oldest",
        "RuntimeError: MPS backend out of memory (currently allocated: 17.00 GB, max allowed: 18.13 "
        "GB). Tried "
        "to allocate 1.00 GB on private pool.",
        OomKind.MPS,
        {"allocated_bytes": gib(17), "total_bytes": gib(18.13), "tried_bytes": gib(1)},
    ),
    Case(
        "cuda-runtime-error",
        "RuntimeError: CUDA error: out of memory\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n",
        OomKind.CUDA_ERROR,
    ),
    Case(
        "cuda-runtime-error-newer",
        "CUDA error: out of memory\n"
        "Search for `cudaErrorMemoryAllocation' in "
        "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below "
        "might be incorrect.\n",
        OomKind.CUDA_ERROR,
    ),
    Case(
        "cuda-runtime-error-flattened",
        "CUDA error: out of memory Search for `cudaErrorMemoryAllocation' in "
        "https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information. "
        "CUDA kernel "
        "errors might be asynchronously reported at some other API call, so the stacktrace below might be "
        "incorrect. For debugging consider passing CUDA_LAUNCH_BLOCKING=1 Compile with "
        "`TORCH_USE_CUDA_DSA` to "
        "enable device-side assertions.",
        OomKind.CUDA_ERROR,
    ),
    Case(
        "cublas",
        "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
        OomKind.CUBLAS,
    ),
    Case(
        "cudnn-find",
        "Error in CuDNN: CUDNN_STATUS_ALLOC_FAILED (cudnnFindConvolutionForwardAlgorithm)",
        OomKind.CUDNN,
    ),
    Case("cudnn-cntk", "cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED", OomKind.CUDNN),
    Case("cudnn-handle", "Could not create cudnn handle: CUDNN_STATUS_ALLOC_FAILED", OomKind.CUDNN),
    Case(
        "cudnn-not-supported",
        "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
        "non-contiguous input.",
        OomKind.CUDNN,
    ),
    Case(
        "bitsandbytes-linux",
        "Error out of memory at line 351 in file /home/developer/bitsandbytes/csrc/pythonInterface.c",
        OomKind.BITSANDBYTES,
    ),
    Case(
        "bitsandbytes-windows",
        "Error out of memory at line 88 in file D:\\a\\bitsandbytes-windows-webui\\csrc\\ops.cu",
        OomKind.BITSANDBYTES,
    ),
    Case("shell-killed", "Killed", OomKind.HOST_KILLED),
    Case(
        "shell-job-killed",
        "./train.sh: line 3: 20931 Killed                  python run.py x.yaml",
        OomKind.HOST_KILLED,
    ),
    Case(
        "exit-137",
        "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)",
        OomKind.HOST_KILLED,
    ),
    Case(
        "subprocess-sigkill",
        "subprocess.CalledProcessError: Command '['python', 'train.py']' died with <Signals.SIGKILL: 9>.",
        OomKind.HOST_KILLED,
    ),
    Case(
        "deepspeed-minus-9",
        "[launch.py:315:sigkill_handler] ... exits with return code = -9",
        OomKind.HOST_KILLED,
    ),
    Case("ui-sigkill", "Job process terminated with signal SIGKILL.", OomKind.HOST_KILLED),
    Case("ui-exit-137", "Job process terminated with exit code 137.", OomKind.HOST_KILLED),
    Case(
        "ui-exited-unexpectedly",
        "Job process exited unexpectedly. Last log line: Quantizing Text Encoder",
        OomKind.HOST_KILLED,
    ),
    Case("ui-exited-unexpectedly-bare", "Job process exited unexpectedly.", OomKind.HOST_KILLED),
    Case(
        "dmesg-short",
        "[Tue Apr 14 16:07:00 2026] Out of memory: Killed process 1067104 (python)",
        OomKind.HOST_KILLED,
    ),
    Case(
        "dmesg-full",
        "Out of memory: Killed process 6154 (python) total-vm:18109076kB, anon-rss:14095848kB, file-rss:0kB, "
        "shmem-rss:0kB, UID:1000 pgtables:29036kB oom_score_adj:0",
        OomKind.HOST_KILLED,
        {"process_bytes": 14095848 * KIB},
    ),
    Case(
        "oom-killer-invoked",
        "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
        "oom_score_adj=0",
        OomKind.HOST_KILLED,
    ),
    Case(
        "oom-kill-constraint",
        "oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,global_oom,"
        "task_memcg=/user.slice/user-1000.slice,task=python,pid=6154,uid=1000",
        OomKind.HOST_KILLED,
    ),
    Case(
        "ray",
        "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.",
        OomKind.HOST_KILLED,
    ),
    Case(
        "cpu-allocator-windows",
        "RuntimeError: [enforce fail at ..\\c10\\core\\impl\\alloc_cpu.cpp:72] data. "
        "DefaultCPUAllocator: not "
        "enough memory: you tried to allocate 151781376 bytes.",
        OomKind.HOST_ALLOC,
        {"tried_bytes": 151781376},
    ),
    Case(
        "cpu-allocator-linux",
        "RuntimeError: [enforce fail at CPUAllocator.cpp:71] . DefaultCPUAllocator: can't allocate "
        "memory: you "
        "tried to allocate 64597662208 bytes. Error code 12 (Cannot allocate memory)",
        OomKind.HOST_ALLOC,
        {"tried_bytes": 64597662208},
    ),
    Case("memory-error", "MemoryError", OomKind.MEMORY_ERROR),
    Case(
        "numpy-memory-error",
        "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.00 GiB for an array with shape "
        "(1024,)",
        OomKind.MEMORY_ERROR,
    ),
    Case(
        "pagefile-safetensors",
        "OSError: The paging file is too small for this operation to complete. (os error 1455)",
        OomKind.WINDOWS_PAGEFILE,
    ),
    Case(
        "pagefile-dll",
        "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
        '"C:\\ai\\venv\\lib\\site-packages\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.',
        OomKind.WINDOWS_PAGEFILE,
    ),
    Case(
        "pagefile-chinese",
        "OSError: [WinError 1455] 页面文件太小，无法完成操作。 "
        'Error loading "...\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
        OomKind.WINDOWS_PAGEFILE,
    ),
    Case(
        "pagefile-java",
        "error='The paging file is too small for this operation to complete' (DOS error/errno=1455)",
        OomKind.WINDOWS_PAGEFILE,
    ),
    Case(
        "shm-bus-error",
        "RuntimeError: DataLoader worker (pid 729) is killed by signal: Bus error. It is possible that "
        "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        OomKind.SHM,
    ),
    Case(
        "shm-no-space",
        "RuntimeError: unable to write to file </torch_739_144252761_4>: No space left on device (28)",
        OomKind.SHM,
    ),
    Case(
        "tensorflow",
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor with "
        "shape[3,3,256,256]",
        OomKind.UNKNOWN,
    ),
    Case(
        "accelerate-batch-size",
        "RuntimeError: No executable batch size found, reached zero.",
        OomKind.UNKNOWN,
    ),
    Case(
        "aitk-abort",
        "RuntimeError: OOM during training step 3 times in a row, aborting training",
        OomKind.CUDA_ALLOC,
    ),
]


def _read(text: str) -> Any:
    return read_log(Piece(PieceKind.LOG, text, "test", 0, 0))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_format(case: Case) -> None:
    facts = _read(case.text)
    assert len(facts.events) == 1, facts.events
    event = facts.events[0]
    assert event.kind is case.kind
    assert facts.fatal is event
    assert event.where.line == 1
    for name, expected in case.numbers.items():
        assert getattr(event, name) == expected, name


LOOK_ALIKES = [
    "RuntimeError: CUDA error: unknown error",
    "terminate called after throwing an instance of 'std::bad_alloc'",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "my run died with CUDA error: out of memory again, any idea?",
    "学習が始まる前に CUDA out of memory で落ちるようになりました。",
    "killed by oom killer. card is a 6000 RTX PRO",
    "If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
    "Job process terminated with exit code 1.",
    "Exception raised from createCublasHandle at ../aten/src/ATen/cuda/CublasHandlePool.cpp:135",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_oom_events(text: str) -> None:
    assert _read(text).events == []
