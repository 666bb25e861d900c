"""Python functions made from kiln's op manifest (kiln._kiln.manifest()).

Each manifest entry becomes a function of the same name whose parameters are
the entry's arguments in order, with the entry's defaults; arguments that
are optional, or one of a group of alternatives (gaussian_filter's sigma or
sigma_x/sigma_y/sigma_z), default to None, which leaves them out. The
function calls kiln._kiln.invoke, which checks the call against the entry's
schema and runs the op. The functions are generated as source (exec) so a
call costs one Python call and one C++ call.
"""
import keyword
import re

from . import _kiln

# SciPy/NumPy spellings accepted besides the manifest's own names.
ALIASES = {
    "convolve2d": {"in1": "image", "in2": "kernel"},
    "clip": {"a_min": "min", "a_max": "max"},
    "where": {"condition": "cond", "x": "a", "y": "b"},
}

_KIND_DOC = {
    "array": "kiln.Array or array-like",
    "operand": "kiln.Array, array-like or number",
    "number": "float",
    "integer": "int",
    "choice": "str",
    "numbers": "sequence of float",
    "integers": "sequence of int",
}

_RESULT_DOC = {
    "array": "kiln.Array",
    "number": "float",
    "integer": "int",
    "number_or_array": "float, or kiln.Array when {when} is given",
    "integer_or_array": "int, or kiln.Array when {when} is given",
}


def _default(arg):
    """The Python default of a manifest argument, or a marker for none."""
    text = arg["default"]
    if text == "":
        return None
    kind = arg["kind"]
    if kind == "number":
        return float(text)
    if kind == "integer":
        return int(text)
    if kind == "numbers":
        return [float(v) for v in text.split(",")]
    if kind == "integers":
        return [int(v) for v in text.replace(",", " ").split()]
    return text


def _python_doc(text):
    # The manifest's docs speak to the command line: arrays are files there.
    text = re.sub(r"\s*\((?:\.npy|\.fits)[^)]*\)", "", text)
    text = text.replace("array file", "array").replace("Array file", "Array")
    text = re.sub(r"--([a-z-]+)", lambda m: m.group(1).replace("-", "_"), text)
    return text


def _docstring(entry):
    lines = [_python_doc(entry["doc"]), "", "Parameters", "----------"]
    for a in entry["args"]:
        d = _default(a)
        extra = f", default {d!r}" if d is not None else (", optional" if a["optional"] else "")
        lines.append(f"{a['name']} : {_KIND_DOC[a['kind']]}{extra}")
        doc = _python_doc(a["doc"])
        if a["choices"]:
            doc += " (one of: " + ", ".join(a["choices"]) + ")"
        lines.append("    " + doc)
    aliases = ALIASES.get(entry["name"])
    if aliases:
        lines.append("")
        lines.append("Also accepted: " + ", ".join(f"{k}= for {v}" for k, v in aliases.items()) + ".")
    lines += ["", "Returns", "-------", _RESULT_DOC[entry["result"]].format(when=entry["array_when"])]
    return "\n".join(lines)


def make_functions(skip=()):
    """A dict name -> function for every manifest entry not in `skip`."""
    functions = {}
    for entry in _kiln.manifest():
        name = entry["name"]
        if name in skip:
            continue
        alternatives = {n for group in entry["alternatives"] for n in group}
        has_array = any(a["kind"] in ("array", "operand") for a in entry["args"])
        aliases = ALIASES.get(name, {})
        params, defaults, items = [], {}, []
        for a in entry["args"]:
            pname = a["name"]
            assert pname.isidentifier() and not keyword.iskeyword(pname), pname
            d = None if pname in alternatives else _default(a)
            required = d is None and not a["optional"] and pname not in alternatives
            # With aliases every argument may be named another way: none is
            # required by Python (invoke names what is missing).
            if required and not defaults and not aliases:
                params.append(pname)
            else:
                key = f"_d_{pname}"
                defaults[key] = d
                params.append(f"{pname}={key}")
            items.append(f"{pname!r}: {pname}")
        tail = ", context=None" if not has_array else ""
        if aliases:
            tail += ", **aliases"
        args_dict = "{" + ", ".join(items) + "}"
        body = f"    kw = {args_dict}\n"
        if aliases:
            body += (
                "    for k, v in aliases.items():\n"
                "        if k not in _aliases:\n"
                f"            raise TypeError('{name}() got an unexpected keyword argument ' + repr(k))\n"
                "        kw[_aliases[k]] = v\n"
            )
        ctx = "context" if not has_array else "None"
        body += f"    return _invoke({name!r}, kw, {ctx})\n"
        src = f"def {name}({', '.join(params)}{tail}):\n{body}"
        scope = {"_invoke": _kiln.invoke, "_aliases": aliases, **defaults}
        exec(compile(src, f"<kiln op {name}>", "exec"), scope)
        fn = scope[name]
        fn.__doc__ = _docstring(entry)
        fn.__module__ = "kiln"
        functions[name] = fn
    return functions
