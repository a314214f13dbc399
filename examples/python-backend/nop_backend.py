#!/usr/bin/env python3
"""A minimal SER conformance backend in Python, to show the process
protocol (docs/protocol.md) needs no Rust.

It "implements" only NOP hit objects: a raygeneration shader made of
`HitObject h;` / `HitObject h = HitObject::MakeNop();` declarations and
stores `Out[i] = h.Accessor();` of scalar accessors into scalar buffers.
It reads the shaders from the request's JSON IR. Every other case gets
`not_supported` with the reason: a declined case inside the claim (the
profile with SER, `shader_execution_reorder`, and no other optional
capability), which the runner counts against it, so
its verdict is NOT CONFORMANT with some 500 gaps, as it should be.

Run it:  ser-conformance --backend "exec:python3 examples/python-backend/nop_backend.py"
"""
import json
import sys

PROTOCOL = 1

# What each scalar accessor returns on a NOP hit object (the primary text:
# "Returns 0 if the HitObject is a NOP-HitObject", IsNop true).
NOP_VALUES = {
    "IsNop": 1, "IsMiss": 0, "IsHit": 0,
    "GetRayFlags": 0, "GetRayTMin": 0, "GetRayTCurrent": 0, "GetHitKind": 0,
    "GetInstanceIndex": 0, "GetInstanceID": 0, "GetGeometryIndex": 0,
    "GetPrimitiveIndex": 0, "GetShaderTableIndex": 0,
}


class Unsupported(Exception):
    pass


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def only(node, kind):
    """The payload of an IR node `{"kind": {KIND: payload}}`, or Unsupported."""
    k = node["kind"]
    if not isinstance(k, dict) or kind not in k:
        raise Unsupported(f"a {next(iter(k)) if isinstance(k, dict) else k} where this backend handles only {kind}")
    return k[kind]


def run(request):
    if request["task"] != "run":
        raise Unsupported(f"task `{request['task']}`")
    items = request["ir"]["items"]
    scalar_buffers = {
        i["Resource"]["name"] for i in items
        if "Resource" in i and "Scalar" in (i["Resource"]["kind"].get("RwStructuredBuffer") or {})
    }
    raygen = request["dispatch"]["raygen"]
    body = next(i["Function"]["body"] for i in items
                if "Function" in i and i["Function"]["name"] == raygen)
    buffers = {k: list(v) for k, v in request["buffers"].items()}
    nops = set()
    for stmt in body["stmts"]:
        if "Decl" in stmt["kind"]:
            decl = stmt["kind"]["Decl"]
            if decl["ty"] != "HitObject":
                raise Unsupported("a declaration of something other than a HitObject")
            for d in decl["declarators"]:
                init = d["init"]
                if init is not None and only(init, "StaticCall")["method"] != "MakeNop":
                    raise Unsupported("a HitObject that is not a NOP")
                nops.add(d["name"])
            continue
        _, target, value = only(stmt, "Expr")["kind"]["Assign"]
        buffer, index = only(target, "Index")
        name, element = only(buffer, "Ident"), only(index, "IntLit")["value"]
        call = only(value, "MethodCall")
        receiver = only(call["receiver"], "Ident")
        if name not in scalar_buffers or receiver not in nops or call["method"] not in NOP_VALUES:
            raise Unsupported(f"`{call['method']}` on `{receiver}` into `{name}`")
        buffers[name][element] = NOP_VALUES[call["method"]]
    return {"type": "buffers", "id": request["id"], "buffers": buffers}


def main():
    hello = json.loads(sys.stdin.readline())
    send({"type": "hello", "protocol": PROTOCOL, "name": "python-nop-example",
          "profile": hello.get("profile") or "0027-maybereorderthread", "capabilities": ["shader_execution_reorder"]})
    if hello.get("protocol") != PROTOCOL:
        return
    for line in sys.stdin:
        request = json.loads(line)
        try:
            send(run(request))
        except Exception as e:  # anything this small example does not understand
            reason = str(e) if isinstance(e, Unsupported) else f"a shader beyond this example ({type(e).__name__})"
            send({"type": "not_supported", "id": request["id"], "reason": reason})


if __name__ == "__main__":
    main()
