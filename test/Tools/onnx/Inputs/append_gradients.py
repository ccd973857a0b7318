"""Turns an imported model's @main into a training step, as a user who
trains an imported model writes it: the loss sum(result 0) and its
gradients (gplace.gradients) with respect to the values named, returned
after the loss. A name is an argument's (its ONNX input name, gplace.name)
or a variable's (an initializer imported with --initializers-as-variables):
the gradient is taken at the variable's read, and the step updates the
variable by gradient descent with a learning rate of 0.5.

Usage: append_gradients.py IN.mlir OUT.mlir NAME...
"""
import re
import sys

src, dst, names = sys.argv[1], sys.argv[2], sys.argv[3:]
text = open(src).read()
signature = re.search(r"func\.func @main\((.*)\) -> \((.*)\) \{\n", text)
if not signature:
    sys.exit("no @main with a parenthesized result list in " + src)
args = dict((name, (value, type_)) for value, type_, name in re.findall(
    r'(%arg\d+): (tensor<[^>]*>) \{gplace\.name = "([^"]*)"\}',
    signature.group(1)))
variables = {}
for var, name in re.findall(
        r'(%\d+) = gplace\.variable [^\n]*\{name = "([^"]*)"\}\n', text):
    read = re.search(r'(%\d+) = gplace\.read ' + var + r' \{name = "' +
                     re.escape(name) + r'/read"\} : !gplace\.resource<(.*)>\n',
                     text)
    if read:
        variables[name] = (var, None, read.group(1), read.group(2))
        args[name] = (read.group(1), read.group(2))
missing = [n for n in names if n not in args]
if missing:
    sys.exit("no argument or variable named " + ", ".join(missing))
ret = re.search(r"\n(\s*)return (%[\w#]+)[^:]*: (tensor<([^>]*)>)[^\n]*\n",
                text[signature.end():])
if not ret:
    sys.exit("no return in @main")
indent, value, type_, shape = ret.groups()
rank = shape.count("x")
xs = [args[n] for n in names]
lines = [
    f"%loss = gplace.reduce_sum {value} axes = [{', '.join(map(str, range(rank)))}]"
    f" : {type_} -> tensor<f32>",
    f"%grads:{len(xs)} = gplace.gradients %loss wrt "
    f"{', '.join(v for v, _ in xs)} : tensor<f32> wrt "
    f"{', '.join(t for _, t in xs)}",
] + [
    f"%lr = gplace.constant dense<5.000000e-01> : tensor<f32>"
] * any(n in variables for n in names) + [
    f"%update{i} = gplace.apply_gradient_descent {variables[n][0]}, %lr, "
    f"%grads#{i} : !gplace.resource<{variables[n][3]}>, tensor<f32>, "
    f"{variables[n][3]}"
    for i, n in enumerate(names) if n in variables
] + [
    f"return %loss, " + ", ".join(f"%grads#{i}" for i in range(len(xs))) +
    " : tensor<f32>, " + ", ".join(t for _, t in xs),
]
body = "\n" + "".join(indent + line + "\n" for line in lines)
start = signature.end() + ret.start()
end = signature.end() + ret.end()
results = "tensor<f32>, " + ", ".join(t for _, t in xs)
head = text[:signature.start(2)] + results + text[signature.end(2):start]
open(dst, "w").write(head + body + text[end:])
