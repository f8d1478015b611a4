#!/usr/bin/env python3
"""Downloads the public request traces the documentation uses, each checked against the SHA-256
of the copy the documented figures were computed on, into DEST (default: ../shared/data/traces
beside the repository, the path the docs' commands name). A file already in DEST is checked, not
fetched again; a download that does not match is deleted and named, and the exit code is 1.
Nothing is bundled in the repository: the files keep their own repositories' licences.

Usage: scripts/fetch-traces.py [DEST] [--only NAME[,NAME...]]
  INFERGRID_TRACE_MIRROR=URL   fetch every file from URL/NAME instead (a mirror; file:// works)
"""
import hashlib
import os
import sys
import tempfile
import urllib.request

# name, upstream URL pinned to a commit, SHA-256, origin and licence holder (see each repository's LICENSE).
TRACES = [
    ("AzureLLMInferenceTrace_conv.csv",
     "https://raw.githubusercontent.com/Azure/AzurePublicDataset/790921015d50dd6aae7f7e47f39ba0e235ad6b08/data/AzureLLMInferenceTrace_conv.csv",
     "2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8", "Azure LLM inference trace 2023 (Azure/AzurePublicDataset)"),
    ("AzureLLMInferenceTrace_code.csv",
     "https://raw.githubusercontent.com/Azure/AzurePublicDataset/790921015d50dd6aae7f7e47f39ba0e235ad6b08/data/AzureLLMInferenceTrace_code.csv",
     "54e9a6d2a4bd06ba1e060304b900abbc74cbea53de96506e60fe5bb4f2277fb6", "Azure LLM inference trace 2023 (Azure/AzurePublicDataset)"),
    ("splitwise_conv.csv",
     "https://raw.githubusercontent.com/microsoft/vidur/8e54dd5c137a9b5aa0b6ff512ace6cc7caf8a377/data/processed_traces/splitwise_conv.csv",
     "439e4138b7e384f316de614c071f7162be05b8af0cef866f82faacd1b0472249", "the Azure conversation trace re-based (microsoft/vidur)"),
    ("arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv",
     "https://raw.githubusercontent.com/microsoft/vidur/6d98aa8f71696520acc603d87439e77cc78160a7/data/processed_traces/arxiv_summarization_stats_llama2_tokenizer_filtered_v2.csv",
     "9d3580538d915ca75e4aaaa54590b42dbb17abc6d74c8913310cf07c232adcdc", "arXiv summarization lengths (microsoft/vidur)"),
    ("sharegpt_8k_filtered_stats_llama2_tokenizer.csv",
     "https://raw.githubusercontent.com/microsoft/sarathi-serve/72339db5b120614033b317880ad3a05a5e4c9415/data/processed_traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv",
     "6d6c296302a853e2669a674a96f269283e60c57e60363bd450588a1066919f9f", "ShareGPT lengths (microsoft/sarathi-serve)"),
    ("conversation_trace.jsonl",
     "https://raw.githubusercontent.com/kvcache-ai/Mooncake/a2a4b18ac537fd798d50e6e9f57031ce86419a37/FAST25-release/traces/conversation_trace.jsonl",
     "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df", "Mooncake conversation trace (kvcache-ai/Mooncake)"),
    ("synthetic_trace.jsonl",
     "https://raw.githubusercontent.com/kvcache-ai/Mooncake/3cca71daccf2a7afb8fe3f0295358f70e3a69fdb/FAST25-release/traces/synthetic_trace.jsonl",
     "bd070915a98fc0ed264d7cfef2ce746002eb3076a695ec31ba2674c0111ec131", "Mooncake synthetic trace (kvcache-ai/Mooncake)"),
]


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def fetch(url, dest_dir, name):
    """The file at url, in dest_dir under a temporary name: its path."""
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", dir=dest_dir)
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as response:
            while chunk := response.read(1 << 20):
                out.write(chunk)
    except BaseException:
        os.unlink(tmp)
        raise
    return tmp


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--only")]
    only = None
    for a in argv[1:]:
        if a.startswith("--only="):
            only = set(a.split("=", 1)[1].split(","))
    if any(a.startswith("-") for a in args) or len(args) > 1:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dest = os.path.abspath(args[0]) if args else os.path.normpath(os.path.join(repo, "..", "shared", "data", "traces"))
    mirror = os.environ.get("INFERGRID_TRACE_MIRROR", "").rstrip("/")
    traces = [t for t in TRACES if only is None or t[0] in only]
    if only is not None and len(traces) != len(only):
        print(f"fetch-traces: --only names no known trace: {', '.join(sorted(only - {t[0] for t in TRACES}))}", file=sys.stderr)
        return 2
    os.makedirs(dest, exist_ok=True)
    failures = 0
    for name, url, sha256, origin in traces:
        path = os.path.join(dest, name)
        if os.path.exists(path):
            got = sha256_of(path)
            state = "present, checksum ok" if got == sha256 else f"present, but its SHA-256 is {got}, not {sha256}"
        else:
            source = f"{mirror}/{name}" if mirror else url
            try:
                tmp = fetch(source, dest, name)
            except OSError as error:
                print(f"{name}: cannot fetch {source}: {error}")
                failures += 1
                continue
            got = sha256_of(tmp)
            if got == sha256:
                os.chmod(tmp, 0o644)
                os.replace(tmp, path)
                state = "fetched, checksum ok"
            else:
                os.unlink(tmp)
                state = f"fetched from {source}, but its SHA-256 is {got}, not {sha256}: not kept"
        ok = state.endswith("checksum ok")
        failures += 0 if ok else 1
        print(f"{name}: {state} ({origin})")
    print(f"{len(traces) - failures} of {len(traces)} traces in {dest}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
