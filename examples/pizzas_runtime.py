#!/usr/bin/env python3
"""The pizzas domain (specs/pizzas.yaml) as a runtime that speaks bench's
process protocol (schema/protocol.md): one JSON request per line on stdin,
one JSON answer per line on stdout, until end of input. It also answers the
query Order.Status of examples/pizza_status.yaml ({"query": ...}).

It needs nothing beyond Python 3's standard library, and bench did not
write it: it is here to show that bench measures runtimes in any language.
Run it through the process target:

    bench run specs/pizzas.yaml --targets python

Options:
    --verb-prefix P   expect verbs qualified with P, e.g. Pizzas:: for
                      Pizzas::Order.CreatePizza (a spec maps the names with
                      the process target's `verbs` option)
    --no-count        refuse the count request, as a runtime without one
                      would (bench then reports verify as n/a)
    --no-record       refuse the record request, as a runtime without one
                      would (bench then verifies the counts only)
"""

import json
import sys

AGGREGATES = ("Order",)
EVENTS = ("PizzaCreated", "ToppingAdded", "PizzaPurchased")


class Refused(Exception):
    """A refusal: a normal answer, {"ok": false, "error": ...}."""


# ---- argument types, as specs/pizzas.yaml declares them ----


def check_int(v, what, minimum=None):
    if isinstance(v, bool) or not isinstance(v, int):
        raise Refused(f"{what}: expected an integer, got {json_kind(v)}")
    if not -(2**63) <= v < 2**63:
        raise Refused(f"{what}: {v} is out of the range of a 64-bit integer")
    if minimum is not None and v < minimum:
        raise Refused(f"{what}: {v} is less than the minimum {minimum}")
    return v


def check_string(v, what):
    if not isinstance(v, str):
        raise Refused(f"{what}: expected a string, got {json_kind(v)}")
    return v


def check_enum(v, what, values):
    if not isinstance(v, str):
        raise Refused(f"{what}: expected one of {', '.join(values)}, got {json_kind(v)}")
    if v not in values:
        raise Refused(f"{what}: '{v}' is not one of {', '.join(values)}")
    return v


def json_kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


def check_struct(v, what, fields):
    """fields: name -> checker(value, path)."""
    if not isinstance(v, dict):
        raise Refused(f"{what + ': ' if what else ''}expected an object, got {json_kind(v)}")
    for key in v:
        if key not in fields:
            where = "this object" if what else "the arguments"
            raise Refused(f"{what + ': ' if what else ''}'{key}' is not a field of {where}")
    out = {}
    for name, check in fields.items():
        path = f"{what}.{name}" if what else name
        if name not in v:
            raise Refused(f"{what + ': ' if what else ''}missing '{name}'")
        out[name] = check(v[name], path)
    return out


def cents(v, what):
    return check_int(v, what, minimum=0)


def pizza(v, what):
    return check_struct(
        v,
        what,
        {"price_cents": cents, "size": lambda x, w: check_enum(x, w, ("small", "large"))},
    )


def amount(v, what):  # ToppingAmount: above 0
    return check_int(v, what, 1)


PARAMS = {
    "Order.CreatePizza": {"name": check_string, "pizza": pizza},
    "Order.AddTopping": {"name": check_string, "topping": check_string, "amount": amount},
    "Order.Purchase": {"name": check_string, "customer_name": check_string, "amount": cents},
}

QUERIES = {
    "Order.Status": {"name": check_string},
}


# ---- the domain ----


class Pizzas:
    def __init__(self):
        self.orders = {}
        self.events = {name: 0 for name in EVENTS}

    def dispatch(self, verb, args):
        params = PARAMS[verb]
        args = check_struct(args, "", params)
        name = args["name"]
        order = self.orders.get(name)
        if verb == "Order.CreatePizza":
            if order is not None:
                raise Refused(f"Order '{name}' already exists")
            if len(name) < 1:  # the field's min_length, an invariant of the new state
                raise Refused(f"name: {len(name)} character(s), fewer than the minimum 1")
            self.orders[name] = {
                "name": name,
                "pizza": args["pizza"],
                "toppings": [],
                "customer_name": None,
                "status": "available",
            }
            return self.emit("PizzaCreated", args)
        if order is None:
            raise Refused(f"Order '{name}' does not exist")
        if verb == "Order.AddTopping":
            if order["status"] != "available":
                raise Refused("the pizza is already sold")
            if not len(order["toppings"]) < 10:
                raise Refused("at most 10 toppings")
            order["toppings"].append({"name": args["topping"], "amount": args["amount"]})
            return self.emit("ToppingAdded", args)
        # Order.Purchase
        if order["status"] != "available":
            raise Refused("the pizza is already sold")
        if not len(order["toppings"]) > 0:
            raise Refused("a pizza needs a topping")
        if not args["amount"] > 0:
            raise Refused("payment must be positive")
        if not args["amount"] >= order["pizza"]["price_cents"]:
            raise Refused("payment does not cover the price")
        order["customer_name"] = args["customer_name"]
        order["status"] = "sold"
        return self.emit("PizzaPurchased", args)

    def query(self, verb, args):
        """Order.Status: returns {status, toppings: len(toppings)}; writes nothing."""
        args = check_struct(args, "", QUERIES[verb])
        order = self.orders.get(args["name"])
        if order is None:
            raise Refused(f"Order '{args['name']}' does not exist")
        return {"status": order["status"], "toppings": len(order["toppings"])}

    def emit(self, event, payload):
        self.events[event] += 1
        return [{"name": event, "payload": payload}]

    def record(self, request):
        if not isinstance(request, dict) or request.get("aggregate") not in AGGREGATES:
            return {"ok": False, "error": "not a request: the record request names no aggregate"}
        key = request.get("id")
        order = self.orders.get(key) if isinstance(key, str) else None
        if order is None:
            return {"ok": False, "error": "no such record"}
        return {"ok": True, "record": order}

    def count(self):
        return {"ok": True, "aggregates": {"Order": len(self.orders)}, "events": dict(self.events)}


# ---- the protocol ----


def answer(domain, line, prefix, counts, records=True):
    try:
        request = json.loads(line)
    except ValueError as e:
        return {"ok": False, "error": f"not a request: {e}"}
    if not isinstance(request, dict):
        return {"ok": False, "error": "not a request: a request is a JSON object"}
    if not request:
        return {"ok": False, "error": "empty request"}
    if "count" in request:
        if not counts:
            return {"ok": False, "error": "this runtime does not count"}
        return domain.count()
    if "record" in request:
        if not records:
            return {"ok": False, "error": "this runtime does not read records back"}
        return domain.record(request["record"])
    if "query" in request:  # {"query": ..., "args": ...}: answered with its returns
        return carry_out(request, "query", prefix, QUERIES, domain.query, "returns")
    return carry_out(request, "verb", prefix, PARAMS, domain.dispatch, "events")


def carry_out(request, kind, prefix, known, run, result):
    """A command (kind "verb") or a query: run(plain name, args) gives the
    answer's result member, or refuses."""
    verb = request.get(kind)
    if not isinstance(verb, str) or not verb.startswith(prefix):
        return {"ok": False, "error": f"unknown {kind} {verb!r}"}
    plain = verb[len(prefix):]
    if plain not in known:
        return {"ok": False, "error": f"unknown {kind} '{verb}'"}
    try:
        out = run(plain, request.get("args", {}))
    except Refused as e:
        return {"ok": False, "error": f"{verb} refused: {e}"}
    return {"ok": True, result: out}


def main(argv):
    prefix, counts, records = "", True, True
    args = argv[1:]
    while args:
        if args[0] == "--verb-prefix" and len(args) > 1:
            prefix, args = args[1], args[2:]
        elif args[0] == "--no-count":
            counts, args = False, args[1:]
        elif args[0] == "--no-record":
            records, args = False, args[1:]
        else:
            print(f"usage: {argv[0]} [--verb-prefix P] [--no-count] [--no-record]", file=sys.stderr)
            return 2
    domain = Pizzas()
    return serve(lambda line: encode(answer(domain, line, prefix, counts, records)))


encode_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def encode(message):
    """One answer line: compact JSON and a newline, as bytes."""
    return encode_json(message).encode() + b"\n"


def serve(respond, after=None):
    """Answers each request line on stdin with respond(line), an answer line
    as bytes (the empty request at once, without it), flushing each; calls
    after(line, text) once an answer is out. Returns 0 at end of input."""
    read = sys.stdin.buffer.readline
    out = sys.stdout.buffer
    while True:
        line = read()
        if not line:
            return 0
        if line.strip() == b"{}":
            text = b'{"ok":false,"error":"empty request"}\n'
        else:
            text = respond(line)
        out.write(text)
        out.flush()
        if after:
            after(line, text)

if __name__ == "__main__":
    sys.exit(main(sys.argv))
