"""Runs docs/python.md's ```python blocks, in order, in one namespace, so
that the page's examples stay true."""
import os
import re

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_docs_examples():
    with open(DOC) as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.M | re.S)
    assert len(blocks) >= 6
    namespace = {"__name__": "docs_python"}
    for index, block in enumerate(blocks):
        exec(compile(block, f"{DOC} (python block {index + 1})", "exec"),
             namespace)
