#!/usr/bin/env python3
"""The jinja2 side of the CLI end-to-end benchmark: what `chatfmt render FILE -o OUT` does, in Python.

Reads a JSONL file of conversations, renders each row through one chat template with jinja2 configured the way
transformers' apply_chat_template configures it, and writes one {"text": ...} (or {"error": ...}) line per row to OUT.
The template is compiled once; each row is json.loads'ed, rendered and json.dumps'ed: the same work the CLI does.

  jinja2-render-file.py TEMPLATE.jinja IN.jsonl OUT.jsonl [--now ISO]
  jinja2-render-file.py TEMPLATE.jinja --first IN.json      time one first render inside the process (ms on stdout)
"""
import json
import sys
import time
from datetime import datetime

STARTED = time.perf_counter()

import jinja2  # noqa: E402  (timed: importing jinja2 is part of a first render)
from jinja2 import nodes  # noqa: E402
from jinja2.ext import Extension, loopcontrols  # noqa: E402
from jinja2.sandbox import ImmutableSandboxedEnvironment  # noqa: E402


class Generation(Extension):
    """transformers' {% generation %} tag: its body renders as is."""

    tags = {"generation"}

    def parse(self, parser):
        line = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(line)

    def _body(self, caller):
        return caller()


def environment(now):
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])

    def to_json(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    env.filters["tojson"] = to_json
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)
    return env


def variables(row):
    # transformers: the named variables first, then everything else in the row (special tokens, extra kwargs).
    values = {"tools": None, "documents": None, "add_generation_prompt": False}
    values.update(row)
    return values


def main(argv):
    now = datetime.fromisoformat(argv[argv.index("--now") + 1]) if "--now" in argv else datetime(2025, 1, 15, 12)
    with open(argv[0], encoding="utf-8") as f:
        template = environment(now).from_string(f.read())
    if argv[1] == "--first":
        with open(argv[2], encoding="utf-8") as f:
            template.render(**variables(json.load(f)))
        print(f"{(time.perf_counter() - STARTED) * 1000:.2f}")
        return
    with open(argv[1], encoding="utf-8") as rows, open(argv[2], "w", encoding="utf-8") as out:
        for line in rows:
            if not line.strip():
                continue
            try:
                result = {"text": template.render(**variables(json.loads(line)))}
            except Exception as error:  # noqa: BLE001 - one row's failure is that row's output, as in the CLI
                result = {"error": f"{type(error).__name__}: {error}"}
            out.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
