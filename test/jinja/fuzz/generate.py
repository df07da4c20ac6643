#!/usr/bin/env python3
"""Random templates for differential testing of chatfmt's Jinja engine against jinja2, one area at a time.

Prints {"template", "context"} lines; record-probes.py renders them with jinja2 in transformers' configuration, and
differ.mjs renders them with chatfmt and prints every case whose output or error differs:

    python3 test/jinja/fuzz/generate.py --area format --seed 1 --count 3000 \\
      | python3 test/jinja/record-probes.py > /tmp/recorded.jsonl
    npm run build && node test/jinja/fuzz/differ.mjs /tmp/recorded.jsonl

A case worth keeping, once fixed, goes into test/jinja/extra-probes.jsonl with its recorded answer.
Areas: format (str.format and %), strings (str methods and text filters), filters (numbers, lists and dicts),
pprint, wordwrap, whitespace (block and trim control), expressions (operators, tests, loops, macros), tojson,
scoping (set, for, if, with, macros and set blocks nested, and what each can see), and official: every template in
../shared/templates/official with --count random conversations each (scripts/fuzz-family-templates.py's generator).
"""
import argparse
import json
import random

STRINGS = ['', ' ', 'a', 'Hello World', '  padded  ', 'héllo wörld', 'a\tb\nc\r\nd', 'ǅungla', 'ß straße', 'İstanbul',
           'x-y_z', '123', '١٢٣', '½', "it's o'neil", 'a,b,,c', '\u00a0nbsp\u2003', 'ﬁne', 'Σίσυφος', 'emoji 😀 here',
           'x' * 30, '  \n  ', 'ΣΑΣ ΟΔΟΣ.', 'ᾳ ᾀ ῷ', 'ŉ ǰ', 'ıi İI', 'Ꭰꭰ', 'ⅰⅱ Ⅻ', '٣.٥', '𝟏𝟐', '<p>Hi <b>x</b></p>']
NUMBERS = ['0', '1', '-1', '2.5', '-2.5', '1e3', '1024', '1000000', '0.001', '-0.0', '2**64', '7', '3.14159', '2.675',
           '1e16', '5e-324', '123456789', '2**53+1']
LISTS = ['[3, 1, 2]', '["b", "A", "a", "B"]', '[]', '[1, 2, 3, 4, 5, 6, 7]', '[[1, 2], [3, 4]]', '["a", 1]',
         '[{"n": "x", "v": 2}, {"n": "Y", "v": 1}, {"n": "x", "v": 3}]', '[none, true, 1.5]', '["é", "e", "E", "ß"]']
DICTS = ['{"b": 1, "a": 2, "C": 3}', '{"x": [1, 2], "y": {"z": none}}', '{}', '{"k": "v w", "data-x": 1, "n": none}',
         '{1: "a", 2: "b", 10: "c"}', '{1: "a", "b": 2}']


def pick(items):
    return random.choice(items)


def lit(value):
    """A Jinja literal for a Python value (negative numbers parenthesized: filters bind tighter than minus)."""
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        text = repr(value)
        return f'({text})' if text.startswith('-') else text
    return json.dumps(value, ensure_ascii=False)


def area_format():
    value = random.choice([random.uniform(-1, 1) * 10 ** random.randint(-8, 22), round(random.uniform(-999, 999), 2),
                           pick([0.5, 2.5, 2.25, 0.125, 1234.5, 9.95, -0.0, 1e21, 5e-324, 99.5, -0.0004]),
                           pick([0, 1, -1, 255, -255, 1234567, 2 ** 70, 65]), pick([True, False]), pick(['ab', '', 'héllo'])])
    if random.random() < 0.5:
        # Width and precision are sometimes fields of their own ('{:{}}', '{:>{w}}'), given after the value.
        extra, named = [], {}

        def number(text):
            if random.random() < 0.25:
                if random.random() < 0.5:
                    extra.append(int(text))
                    return '{}'
                named['w' + str(len(named))] = int(text)
                return '{w' + str(len(named) - 1) + '}'
            return text
        spec = ''.join([
            pick(['', '*', '0', ' ']) + pick('<>^=') if random.random() < 0.3 else '',
            pick('+- ') if random.random() < 0.4 else '', 'z' if random.random() < 0.15 else '',
            '#' if random.random() < 0.3 else '',
            '0' if random.random() < 0.3 else '', number(str(random.randint(0, 20))) if random.random() < 0.5 else '',
            pick([',', '_']) if random.random() < 0.3 else '', '.' + number(str(random.randint(0, 20))) if random.random() < 0.5 else '',
            pick(['', 'd', 'f', 'F', 'e', 'E', 'g', 'G', '%', 'x', 'X', 'o', 'b', 'n', 's', 'c']) if random.random() < 0.8 else ''])
        conversion = pick(['!r', '!s', '!a']) if random.random() < 0.1 else ''
        args = ', '.join([lit(value)] + [lit(n) for n in extra] + [f'{k}={lit(v)}' for k, v in named.items()])
        return "{{ '{" + conversion + ":" + spec + "}'.format(" + args + ') }}'
    # '*' takes the width or precision from the arguments, before the value (a negative width left-justifies).
    stars = []
    spec = '%' + ''.join(f for f in '-+ #0' if random.random() < 0.2)
    if random.random() < 0.2:
        spec += '*'
        stars.append(random.randint(-12, 12))
    elif random.random() < 0.5:
        spec += str(random.randint(0, 20))
    if random.random() < 0.2:
        spec += '.*'
        stars.append(random.randint(-3, 12))
    elif random.random() < 0.5:
        spec += f'.{random.randint(0, 20)}'
    args = lit(value) if not stars else '(' + ', '.join([lit(n) for n in stars] + [lit(value)]) + ')'
    return "{{ '" + spec + pick('dixXofFeEgGsrac') + "' % " + args + ' }}'


def area_strings():
    small = [-3, -1, 0, 1, 2, 3, 5, 10, 100]
    calls = ['.upper()', '.lower()', '.title()', '.capitalize()', '.swapcase()', '.casefold()', '.strip()', '.split()',
             f'.strip({lit(pick(["a", " x", "lo"]))})', f'.split({lit(pick([",", " ", "l"]))})', f'.rsplit(None, {pick(small)})',
             '.splitlines(True)', f'.find({lit(pick(["l", "", "zz"]))}, {pick(small)})', f'.count({lit(pick(["l", ""]))})',
             f'.replace("l", "_", {pick(small)})', f'.center({pick(small)}, "*")', f'.zfill({pick(small)})', '.isalpha()',
             '.isdigit()', '.isnumeric()', '.islower()', '.isupper()', '.istitle()', '.isspace()', f'.expandtabs({pick(small)})',
             f'[{pick(small)}:{pick(small)}:{pick([1, 2, -1])}]', '|title', '|capitalize', '|trim', '|wordcount',
             f'|truncate({pick(small) + 5})', f'|indent({pick(small)}, true)', '|reverse', '|striptags', '|escape',
             '|urlencode', '|length', '|int', '|float', '|tojson', '|list|unique|list', '|sort|join',
             '.isascii()', '.isidentifier()', '.isprintable()', '.translate(' + pick(['{108: none, 101: 69}', '{32: 0x1F600}', '[]', "'abc'"]) + ')',
             ".format_map({'a': 1})"]
    return '{{ (' + lit(pick(STRINGS)) + ')' + pick(calls) + ' }}'


def area_filters():
    forms = [
        lambda: f'({pick(NUMBERS)})|' + pick(['filesizeformat', 'filesizeformat(true)', 'abs', 'int', 'float', 'string',
                                             f'round({random.randint(-2, 3)}, {lit(pick(["common", "ceil", "floor"]))})']),
        lambda: f'({pick(LISTS)})|' + pick(['sort', 'sort(reverse=true, case_sensitive=true)', 'sort(attribute="n")', 'unique|list',
                                           'min', 'max(case_sensitive=true)', 'sum', 'sum(attribute="v", start=10)',
                                           f'batch({random.randint(1, 4)}, "F")|list', f'slice({random.randint(1, 4)}, 0)|list',
                                           'groupby("n")|list', 'map(attribute="n", default="?")|list', 'selectattr("v", "gt", 1)|list',
                                           'select("odd")|list', 'join(", ")', 'pprint', 'tojson(indent=2)', 'first', 'last']),
        lambda: f'({pick(DICTS)})|' + pick(['dictsort', 'dictsort(by="value")', 'dictsort(true, "key", true)', 'xmlattr',
                                           'xmlattr(false)', 'pprint', 'tojson(sort_keys=true)', 'items|list', 'list', 'string']),
        lambda: f'({pick(NUMBERS)}) {pick(["//", "%", "/"])} ({pick(NUMBERS)})',
        # Small exponents only: jinja2 would compute 2**64 ** 2**53 for as long as it takes.
        lambda: f'({pick(NUMBERS)}) ** ({pick(["2", "0.5", "-1", "3", "-0.5"])})',
    ]
    return '{{ ' + pick(forms)() + ' }}'


def nested_value(depth=0):
    r = random.random()
    if depth > 3 or r < 0.3:
        return pick(['1', '-2.5', 'none', 'true', '"short"', '"' + 'word ' * random.randint(1, 30) + '"', '""', '123456789',
                     '"line one\\nline two, which is rather longer than the first one, and longer still\\n"'])
    if r < 0.55:
        return '[' + ', '.join(nested_value(depth + 1) for _ in range(random.randint(0, 12))) + ']'
    if r < 0.7:
        return '(' + ', '.join(nested_value(depth + 1) for _ in range(random.randint(1, 6))) + ',)'
    keys = random.sample(['"b"', '"a"', '"C"', '"key_' + 'x' * 20 + '"', '1', '2', '"é"'], random.randint(0, 6))
    return '{' + ', '.join(f'{key}: {nested_value(depth + 1)}' for key in keys) + '}'


def area_pprint():
    return '{{ (' + nested_value() + ')|pprint }}'


def area_tojson():
    args = pick(['', 'indent=2', 'sort_keys=true', 'ensure_ascii=true', 'separators=(",", ":")', 'indent=2, sort_keys=true', 'indent="\\t"'])
    return '{{ (' + nested_value() + ')|tojson(' + args + ') }}'


def area_wordwrap():
    words = ['a', 'the', 'quick-brown', 'fox--jumps', 'lazy-', '-dog', 'supercalifragilistic', 'well-known', 'état', 'a--b', '---', '😀-😀']
    separators = [' ', '  ', '\t', ' \n', '\n', ' \r\n ', '\u00a0']
    text = ''.join(pick(words) + pick(separators) for _ in range(random.randint(0, 14)))
    args = [str(pick([1, 2, 3, 5, 10, 79]))]
    if random.random() < 0.3:
        args.append(pick(['true', 'false']))
    if random.random() < 0.15:
        args.append(lit(pick(['<br>', '|'])))
    return '{{ ' + lit(text) + '|wordwrap(' + ', '.join(args) + ') }}'


def area_whitespace():
    texts = ['', ' ', '\n', ' \n', '\n\n', '\t', 'a', ' b\n', '\n  ', '  \n  x', '\r\n']

    def tag(body):
        return '{%' + pick(['', '', '-', '+']) + ' ' + body + ' ' + pick(['', '', '-', '+']) + '%}'

    def block(depth=0):
        parts = []
        for _ in range(random.randint(1, 5)):
            parts.append(pick(texts))
            r = random.random()
            if r < 0.2 and depth < 2:
                parts.append(tag('if x') + block(depth + 1) + (tag('else') + block(depth + 1) if random.random() < 0.5 else '') + tag('endif'))
            elif r < 0.35 and depth < 2:
                parts.append(tag('for i in [1, 2]') + block(depth + 1) + tag('endfor'))
            elif r < 0.5:
                parts.append('{{' + pick(['', '-']) + ' x ' + pick(['', '-']) + '}}')
            elif r < 0.6:
                parts.append('{#' + pick(['', '-']) + ' c ' + pick(['', '-']) + '#}')
            elif r < 0.7:
                parts.append(tag('set y = 1'))
        return ''.join(parts) + pick(texts)

    return block()


def area_expressions():
    values = ['1', '0', '-3', '2.0', '2.5', 'none', 'true', '"a"', '""', '[1, 2]', '[]', '{"a": 1}', '(1,)', 'x', 'undefined_name', '10**20']
    tests = ['defined', 'none', 'integer', 'float', 'number', 'string', 'mapping', 'iterable', 'sequence', 'even', 'odd',
             'lower', 'divisibleby(3)', 'eq(1)', 'lt(2)', 'in([1, "a"])', 'sameas(none)', 'filter', 'test']
    forms = [
        lambda: f'{pick(values)} is {pick(["", "not "])}{pick(tests)}',
        lambda: f'{pick(values)} {pick(["==", "!=", "<", ">=", "in", "not in"])} {pick(values)}',
        lambda: f'{pick(values)} {pick(["+", "-", "*", "/", "//", "%", "~", "and", "or"])} {pick(values)}',
        lambda: pick(values) + '[' + pick(['0', '-1', '1:', ':2', '::2', '"a"']) + ']',
        lambda: f'({pick(values)} if {pick(values)} else {pick(values)})',
    ]
    statements = [
        "{% for i in [3, 1, 2] %}{{ loop.index }}{{ loop.revindex0 }}{{ loop.previtem }}{{ loop.cycle('a', 'b') }}{{ loop.changed(i > 1) }}|{% endfor %}",
        "{% for i in [[1, [2]], [3]] recursive %}{{ loop.depth }}:{% if i is iterable %}{{ loop(i) }}{% else %}{{ i }}{% endif %};{% endfor %}",
        "{% for i in range(5) if i is odd %}{{ i }}{{ loop.last }}{% else %}none{% endfor %}",
        "{% macro m(a, b=2, c=a) %}{{ a }}{{ b }}{{ c }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1) }}|{{ m(1, 3, 4, 5, d=6) }}",
        "{% macro m() %}[{{ caller(1) }}]{% endmacro %}{% call(x) m() %}c{{ x }}{% endcall %}",
    ]
    return pick(statements) if random.random() < 0.15 else '{{ ' + pick(forms)() + ' }}'


def area_scoping():
    names = ['a', 'b', 'ns.v']

    def assign():
        name = pick(names)
        value = pick(['1', 'a', "'s'", 'b ~ "x"', 'loop.index if loop is defined else 0', '[a, b]', 'ns.v + 1 if ns.v is number else 0'])
        return '{% set ' + name + ' = ' + value + ' %}'

    def show():
        return '{{ [a, b, ns.v, loop.index if loop is defined else -1, c is defined] }}'

    def block(depth=0):
        parts = []
        for _ in range(random.randint(1, 4)):
            r = random.random()
            if r < 0.3:
                parts.append(assign())
            elif r < 0.5:
                parts.append(show())
            elif r < 0.62 and depth < 3:
                parts.append('{% for i in [1, 2] %}' + block(depth + 1) + '{% endfor %}')
            elif r < 0.72 and depth < 3:
                parts.append('{% if ' + pick(['a', 'b', 'true', 'false']) + ' %}' + block(depth + 1) + '{% else %}' + block(depth + 1) + '{% endif %}')
            elif r < 0.8 and depth < 3:
                parts.append('{% with c = a %}' + block(depth + 1) + '{% endwith %}')
            elif r < 0.88 and depth < 2:
                parts.append('{% macro m(a) %}' + block(depth + 1) + '{% endmacro %}{{ m(' + pick(['1', 'b']) + ') }}')
            elif depth < 3:
                parts.append('{% set c %}' + block(depth + 1) + '{% endset %}{{ c }}')
        return ''.join(parts)

    return "{% set a = 0 %}{% set b = 'b0' %}{% set ns = namespace(v=0) %}" + block() + show()


AREAS = {
    'format': area_format, 'strings': area_strings, 'filters': area_filters, 'pprint': area_pprint, 'tojson': area_tojson,
    'wordwrap': area_wordwrap, 'whitespace': area_whitespace, 'expressions': area_expressions, 'scoping': area_scoping,
}


def official_templates(seed, count):
    """Every official template in ../shared/templates/official with `count` random conversations each (the family
    fuzzer's generator), its special tokens and transformers' variables as the context."""
    import glob
    import importlib.util
    import os
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    shared = os.path.join(os.path.dirname(repo), 'shared')
    spec = importlib.util.spec_from_file_location('family_fuzz', os.path.join(repo, 'scripts', 'fuzz-family-templates.py'))
    family_fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(family_fuzz)
    conversations = [family_fuzz.Generator(seed).conversation() for _ in range(count)]
    with open(os.path.join(shared, 'templates', 'special_tokens.json')) as f:
        tokens = json.load(f)
    for path in sorted(glob.glob(os.path.join(shared, 'templates', 'official', '*', '*.jinja'))):
        with open(path) as f:
            source = f.read()
        for data in conversations:
            data = dict(data)
            context = dict(tokens.get(os.path.basename(os.path.dirname(path)), {}))
            context.update(messages=data.pop('messages'), tools=data.pop('tools', None), documents=data.pop('documents', None),
                           add_generation_prompt=data.pop('add_generation_prompt', False))
            context.update(data)
            print(json.dumps({'template': source, 'context': context}, ensure_ascii=False))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--area', choices=sorted([*AREAS, 'official']), required=True)
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--count', type=int, default=1000)
    options = parser.parse_args()
    random.seed(options.seed)
    if options.area == 'official':
        return official_templates(options.seed, options.count)
    for _ in range(options.count):
        context = {'x': pick([1, 0, 'v', [1, 2], {'k': [1, 2.5, None]}, None]), 'y': 'str\nwith "quotes"'}
        print(json.dumps({'template': AREAS[options.area](), 'context': context}, ensure_ascii=False))


if __name__ == '__main__':
    main()
