#!/usr/bin/env python3
"""Writes a valid spec of about 50 KB (or --kb KB) to stdout: many aggregates,
each with typed fields, commands with guards, effects, ensure and events, a
policy per aggregate, and a cycle that touches every aggregate. Used by
tests/perf/lint_large.sh to time `bench lint` on a large spec."""
import argparse

HEAD = """# yaml-language-server: $schema=../../schema/spec.schema.json
spec: 1
domain: large
about: A generated spec for timing the linter.

types:
  Cents: {type: int, min: 0}
  Code: {type: string, min_length: 1, max_length: 64, pattern: '^[a-z]+-[0-9]+$'}
  State: {enum: [fresh, active, closed]}
  Line: {fields: {sku: string, quantity: int, price: Cents}}

aggregates:
"""

AGG = """  Thing{i}:
    identity: code
    about: Generated aggregate number {i}.
    fields:
      code: Code
      owner: {{type: string, min_length: 1}}
      balance: {{type: int, min: 0, default: 0}}
      limit: {{type: int, min: 0, max: 1000000}}
      state: {{type: State, default: fresh}}
      lines: {{list: Line, max_items: 100}}
      touched: {{type: int, default: 0}}
      note: {{type: string, optional: true}}
    commands:
      Open:
        creates: true
        params: {{code: Code, owner: string, limit: Cents}}
        guards:
          - {{check: len(arg.owner) > 0, refuse: an owner is needed}}
          - {{check: arg.limit <= 1000000, refuse: the limit is too high}}
        set: {{owner: arg.owner, limit: arg.limit, state: active}}
        emits: Thing{i}Opened
      Add:
        params: {{code: Code, sku: string, quantity: int, price: Cents}}
        guards:
          - {{check: state == active, refuse: the thing is not active}}
          - {{check: arg.quantity > 0 and arg.quantity < 1000, refuse: a bad quantity}}
          - {{check: len(lines) < 100, refuse: too many lines}}
          - {{check: balance + arg.quantity * arg.price <= limit, refuse: over the limit}}
        set: {{balance: balance + arg.quantity * arg.price}}
        append:
          lines: {{sku: arg.sku, quantity: arg.quantity, price: arg.price}}
        ensure:
          - {{check: balance == old.balance + arg.quantity * arg.price, refuse: the balance moved wrongly}}
          - {{check: len(lines) == len(old.lines) + 1, refuse: the lines did not grow by one}}
        emits: {{event: Thing{i}Added, payload: {{code: arg.code, amount: arg.quantity * arg.price}}}}
      Touch:
        params: {{code: Code}}
        set: {{touched: touched + 1}}
        emits: Thing{i}Touched
      Close:
        params: {{code: Code, reason: string}}
        guards:
          - {{check: state == active, refuse: the thing is not active}}
          - {{check: has(note) or len(arg.reason) > 0, refuse: a reason is needed}}
        set: {{state: closed, note: arg.reason}}
        emits: Thing{i}Closed
"""

POLICY = "  - {{when: Thing{i}Added, run: Thing{i}.Touch, args: {{code: event.code}}}}\n"

STEPS = """    - Thing{i}.Open: {{code: "t-${{n}}", owner: Ada, limit: 500000}}
    - Thing{i}.Add: {{code: "t-${{n}}", sku: widget, quantity: 3, price: 250}}
    - Thing{i}.Close: {{code: "t-${{n}}", reason: done}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", type=int, default=50)
    target = ap.parse_args().kb * 1024
    per = len(AGG.format(i=0)) + len(POLICY.format(i=0)) + len(STEPS.format(i=0))
    count = max(1, (target - len(HEAD)) // per)
    out = [HEAD]
    out += [AGG.format(i=i) for i in range(count)]
    out.append("\npolicies:\n")
    out += [POLICY.format(i=i) for i in range(count)]
    out.append("\nworkload:\n  cycle:\n")
    out += [STEPS.format(i=i) for i in range(count)]
    out.append("  warmup: 10\n  iterations: 100\n  runs: 3\n  targets: [memory]\n")
    print("".join(out), end="")


if __name__ == "__main__":
    main()
