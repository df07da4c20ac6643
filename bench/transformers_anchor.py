"""Times transformers' own ResponseParser (parse_response) for bench/response-template.mjs.

Reads one JSON job on stdin:
  {"seconds": float, "vectors": [{"input", "template", "prefix", "tools", "expected_error"}...] | null,
   "cases": [{"name", "text", "prefix", "template"}...]}
and prints one JSON object: the installed transformers version, milliseconds per pass over all vectors (each template
loaded per vector, as parse_response does), and per case the milliseconds of one parse plus the message, so the
caller can check that both parsers read the same thing. Each timing also has "cpu": the best pass in this process's
CPU time, which a loaded machine inflates far less than wall time. Prints {"error": ...} when transformers cannot be imported.
"""

import json
import sys
import time


def passes(fn, seconds, count=3):
    """Milliseconds per call: the median of `count` passes of about `seconds` each (at least one call a pass), and
    the best pass in CPU time of this process ("cpu"), which a loaded machine inflates far less than wall time."""
    fn()
    results = []
    cpu = []
    for _ in range(count):
        calls = 0
        start = time.perf_counter()
        cpu_start = time.process_time()
        while True:
            fn()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
        results.append(elapsed * 1000 / calls)
        cpu.append((time.process_time() - cpu_start) * 1000 / calls)
    results.sort()
    return {"median": results[len(results) // 2], "min": results[0], "max": results[-1], "cpu": min(cpu)}


def main():
    job = json.load(sys.stdin)
    try:
        import transformers
        from transformers.utils.chat_parsing import parse_response
    except Exception as error:  # not installed, or too old to have response templates
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
        return
    seconds = job.get("seconds", 0.3)
    out = {"version": transformers.__version__, "vectors": None, "cases": {}}

    vectors = job.get("vectors")
    if vectors:
        def run_vectors():
            for v in vectors:
                try:
                    parse_response(v["input"], v["template"], prefix=v.get("prefix"), tools=v.get("tools"))
                except Exception:
                    if not v.get("expected_error"):
                        raise

        out["vectors"] = passes(run_vectors, seconds * 2)

    for case in job.get("cases", []):
        def run_case(case=case):
            return parse_response(case["text"], case["template"], prefix=case["prefix"])

        start = time.perf_counter()
        cpu_start = time.process_time()
        message = run_case()
        once = (time.perf_counter() - start) * 1000
        cpu_once = (time.process_time() - cpu_start) * 1000
        # A parse slower than the pass length is timed once more and the better of the two kept (minutes otherwise).
        if once > seconds * 1000:
            start = time.perf_counter()
            cpu_start = time.process_time()
            run_case()
            timing = min(once, (time.perf_counter() - start) * 1000)
            cpu = min(cpu_once, (time.process_time() - cpu_start) * 1000)
            out["cases"][case["name"]] = {"median": timing, "min": timing, "max": max(once, timing), "cpu": cpu, "message": message}
        else:
            timing = passes(run_case, seconds)
            timing["message"] = message
            out["cases"][case["name"]] = timing
    print(json.dumps(out))


if __name__ == "__main__":
    main()
