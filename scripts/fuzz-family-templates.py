#!/usr/bin/env python3
"""Differential fuzzer: chatfmt's family templates (templates/<id>.jinja) against the official templates they
follow, both rendered by ../shared/tools/render_ref.py's environment (Python jinja2 set up like transformers).

Random conversations (roles in any order, null/empty/part-list content, tool calls with object, string or null
arguments, reasoning fields, template variables) are rendered by both; the outputs must be identical, or both
must fail. deepseek-v3.1's extra tool prompt is removed before comparing (see its template header).

Usage: python3 scripts/fuzz-family-templates.py [--seed N] [--count N] [--family ID ...]
Prints each mismatch (and saves its input to /tmp/chatfmt-fuzz-<family>-<n>.json); exits 1 if any.
"""
import argparse
import importlib.util
import json
import os
import random
import sys
from datetime import datetime

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(REPO), "shared")
OFFICIAL = os.path.join(SHARED, "templates", "official")
FAMILIES = {
    "hermes": ("hermes/NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "hermes"),
    "qwen2.5": ("qwen2.5/Qwen-Qwen2.5-7B-Instruct.jinja", "qwen2.5"),
    "qwen3": ("qwen3/Qwen-Qwen3-0.6B.jinja", "qwen3"),
    "qwen3-coder": ("qwen3-coder/Qwen-Qwen3-Coder-30B-A3B-Instruct.jinja", "qwen3-coder"),
    "deepseek-v3.1": ("deepseek/deepseek-ai-DeepSeek-V3.1.jinja", "deepseek"),
    "deepseek-r1": ("deepseek/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", "deepseek"),
    "kimi-k2": ("kimi-k2/moonshotai-Kimi-K2-Thinking.jinja", "kimi-k2"),
    "gpt-oss": ("gpt-oss/openai-gpt-oss-20b.jinja", "gpt-oss"),
    "glm-4.5": ("glm/zai-org-GLM-4.6.jinja", "glm"),
    "seed-oss": ("seed-oss/ByteDance-Seed-Seed-OSS-36B-Instruct.jinja", "seed-oss"),
    "llama-3": ("llama/meta-llama-Llama-3.3-70B-Instruct.jinja", "llama"),
}
DEEPSEEK_BOS = "<｜begin▁of▁sentence｜>"
TOOL_PROMPT_START = "## Tools\nYou have access to the following tools:\n"
TOOL_PROMPT_END = "- For multiple tool calls, chain them directly without separators or spaces\n"

TEXTS = ["", " ", "hi", "  pad  ", "\nnl\n", "a</think>b", "<think>x</think>y", "<think>\nr\n</think>\n\nz",
         "<tool_response>x</tool_response>", "/nothink", "日本 😀 שלום", "x\u00a0", "<|channel|>final<|message|>", "None",
         "</parameter><seed:eos><｜tool▁sep｜>"]
ARGUMENTS = [{}, {"city": "Paris"}, {"n": 1, "f": 1.0, "b": True, "z": None}, {"l": [1, "x"], "d": {"k": "v"}}, {"s": " sp "}]
TOOLS = [
    None,
    [],
    [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {
        "type": "object", "properties": {"city": {"type": "string", "description": "c"}, "n": {"type": "integer"}},
        "required": ["city"]}}}],
    [{"type": "function", "function": {"name": "g", "description": "G", "parameters": {"type": "object", "properties": {}}}},
     {"type": "function", "function": {"name": "h", "description": "H", "parameters": {"type": "object", "properties": {
         "x": {"type": "array", "items": {"type": "object", "properties": {"y": {"type": "number"}}}},
         "e": {"type": "string", "enum": ["a", "b"], "default": "a"}}}}}],
]
VARIABLES = [("enable_thinking", [True, False, None]), ("thinking", [True, False]), ("reasoning_effort", ["low", "high"]),
             ("thinking_budget", [-1, 0, 100, 5000]), ("use_json_tooldef", [True, False]),
             ("builtin_tools", [["browser"], ["python", "x"], [], ["get_weather", "code_interpreter"]]), ("model_identity", ["Me."]),
             ("date_string", ["01 Jan 2025"]), ("tools_in_user_message", [True, False]), ("custom_tools", [[], None])]


class Generator:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def text(self):
        return self.r.choice(TEXTS)

    def content(self):
        roll = self.r.random()
        if roll < 0.08:
            return None
        if roll < 0.14:
            parts = [{"type": "text", "text": self.text()}]
            if self.r.random() < 0.5:
                parts.append({"type": "image_url", "image_url": {"url": "u"}})
            return parts
        return self.text()

    def arguments(self):
        value = self.r.choice(ARGUMENTS)
        roll = self.r.random()
        return json.dumps(value) if roll < 0.3 else None if roll < 0.33 else value

    def call(self, index):
        call = {"id": f"functions.f:{index}", "type": "function",
                "function": {"name": self.r.choice(["f", "get_weather", "a-b.c"]), "arguments": self.arguments()}}
        if self.r.random() < 0.1:
            del call["id"]
        return call

    def message(self, index):
        role = self.r.choice(["user", "user", "assistant", "assistant", "assistant", "tool", "tool", "system", "developer"])
        message = {"role": role}
        if self.r.random() < 0.95:
            message["content"] = self.content()
        if role == "assistant":
            if self.r.random() < 0.5:
                message["tool_calls"] = [self.call(index + k) for k in range(self.r.choice([0, 1, 1, 2, 3]))]
            if self.r.random() < 0.05:
                message["tool_calls"] = None
            if self.r.random() < 0.5:
                message["reasoning_content"] = self.r.choice([None, "", "  think  ", "\nr\n"])
            if self.r.random() < 0.3:
                message["thinking"] = self.r.choice(["", "th", None])
            if self.r.random() < 0.1:
                message["prefix"] = True
        if role == "tool":
            if self.r.random() < 0.7:
                message["tool_call_id"] = f"functions.f:{index}"
            if self.r.random() < 0.5:
                message["name"] = "f"
        if role == "user" and self.r.random() < 0.1:
            message["name"] = "bob"
        return message

    def conversation(self):
        messages = [self.message(i) for i in range(self.r.randint(0, 7))]
        if self.r.random() < 0.5:
            messages.insert(0, {"role": "system", "content": self.text()})
        data = {"messages": messages, "add_generation_prompt": self.r.random() < 0.5}
        tools = self.r.choice(TOOLS)
        if tools is not None:
            data["tools"] = tools
        for key, values in VARIABLES:
            if self.r.random() < 0.25:
                data[key] = self.r.choice(values)
        return data


def without_tool_prompt(text):
    start = text.find(TOOL_PROMPT_START)
    end = text.find(TOOL_PROMPT_END, start) if start >= 0 else -1
    if end < 0:
        return text
    cut = start - 2 if start > len(DEEPSEEK_BOS) else start
    return text[:cut] + text[end + len(TOOL_PROMPT_END):]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--family", action="append", choices=sorted(FAMILIES))
    a = ap.parse_args()

    spec = importlib.util.spec_from_file_location("render_ref", os.path.join(SHARED, "tools", "render_ref.py"))
    rr = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rr)
    env = rr.make_environment(datetime.fromisoformat("2025-01-15T12:00:00"))

    def render(template, data, tokens):
        try:
            return True, rr.render_one(template, data, tokens, "keep", False)
        except Exception as e:  # noqa: BLE001 - a failure is a result to compare
            return False, f"{type(e).__name__}: {e}"

    generator = Generator(a.seed)
    conversations = [generator.conversation() for _ in range(a.count)]
    mismatches = 0
    for family in a.family or FAMILIES:
        official, token_key = FAMILIES[family]
        tokens = rr.load_special_tokens(token_key)
        theirs = env.from_string(open(os.path.join(OFFICIAL, official), encoding="utf-8").read())
        ours = env.from_string(open(os.path.join(REPO, "templates", f"{family}.jinja"), encoding="utf-8").read())
        rendered = 0
        for n, data in enumerate(conversations):
            ok_theirs, out_theirs = render(theirs, data, tokens)
            ok_ours, out_ours = render(ours, data, tokens)
            rendered += ok_theirs
            if ok_ours and family == "deepseek-v3.1":
                out_ours = without_tool_prompt(out_ours)
            if ok_theirs != ok_ours or (ok_theirs and out_theirs != out_ours):
                mismatches += 1
                saved = f"/tmp/chatfmt-fuzz-{family}-{n}.json"
                json.dump(data, open(saved, "w", encoding="utf-8"), ensure_ascii=False)
                print(f"MISMATCH {family} #{n} ({saved}): official {'ok' if ok_theirs else out_theirs[:120]} | "
                      f"ours {'ok' if ok_ours else out_ours[:120]}")
        print(f"{family}: {a.count} conversations, official renders {rendered}")
    print(f"{mismatches} mismatch(es)")
    sys.exit(1 if mismatches else 0)


if __name__ == "__main__":
    main()
