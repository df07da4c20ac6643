#!/usr/bin/env python3
"""The jinja2 anchor of bench/render.mjs, timed the way chatfmt is timed.

render_ref.py --bench rebuilds the template variables on every render (a deep copy of the messages and
the tool-call argument conversion), which chatfmt's warm loop does once. This driver reuses
render_ref's environment and variable set-up, builds the variables once, and times only
template.render(**variables).

Usage: render_jinja2.py TOOLS_DIR TEMPLATE INPUT.json TOKENS ARGS_MODE WARM_RENDERS PASSES COLD_RUNS
Prints one JSON object: {"text", "warm": [renders/s per pass], "cold_ms": median ms of a never-seen source}.
"""
import json
import statistics
import sys
import time
from datetime import datetime


def main():
    tools_dir, template_path, input_path, tokens, args_mode = sys.argv[1:6]
    warm_renders, passes, cold_runs = (int(a) for a in sys.argv[6:9])
    sys.path.insert(0, tools_dir)
    import render_ref

    render_ref.GenerationBlock.mark_spans = False
    env = render_ref.make_environment(datetime(2025, 1, 15, 12))
    with open(input_path, encoding="utf-8") as f:
        data = json.load(f)
    source = render_ref.load_template_source(template_path, None, bool(data.get("tools")))
    variables = render_ref.template_variables(data, render_ref.load_special_tokens(tokens), args_mode)

    template = env.from_string(source)
    text = template.render(**variables)
    for _ in range(min(warm_renders, 50)):
        template.render(**variables)
    warm = []
    for _ in range(passes):
        started = time.perf_counter()
        for _ in range(warm_renders):
            template.render(**variables)
        warm.append(warm_renders / (time.perf_counter() - started))

    cold = []
    for i in range(cold_runs):
        started = time.perf_counter()
        env.from_string(source + "{# cold %d #}" % i).render(**variables)
        cold.append((time.perf_counter() - started) * 1000)

    print(json.dumps({"text": text, "warm": warm, "cold_ms": statistics.median(cold) if cold else None}, ensure_ascii=False))


if __name__ == "__main__":
    main()
