#!/usr/bin/env python3
"""Records probes for extra-probes.jsonl: reads {"template", "context"?} lines on stdin and prints each as
{"name", "template", "context", "expected" | "error"} with what jinja2 gives, in transformers' configuration
(ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loop controls, json.dumps tojson, raise_exception,
strftime_now at 2025-01-15T12:00:00, {% generation %} rendering its body).

    python3 test/jinja/record-probes.py < new.jsonl >> test/jinja/extra-probes.jsonl
"""
import json
import sys
from datetime import datetime

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class Generation(Extension):
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[Generation, loopcontrols])

    def tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    now = datetime(2025, 1, 15, 12, 0, 0)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: now.strftime(fmt)
    return env


def main():
    env = environment()
    for line in sys.stdin:
        if not line.strip():
            continue
        probe = json.loads(line)
        context = probe.get("context", {})
        record = {"name": probe.get("name", probe["template"]), "template": probe["template"], "context": context}
        try:
            record["expected"] = env.from_string(probe["template"]).render(**context)
        except Exception as error:  # every exception class is part of the probe's expectation
            record["error"] = f"{type(error).__name__}: {error}"
        print(json.dumps(record, ensure_ascii=False))


if __name__ == "__main__":
    main()
