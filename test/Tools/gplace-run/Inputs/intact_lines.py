"""Prints 'N intact' when every line of FILE containing TEXT is the same
line, one of the whole messages the tasks of a cluster wrote (a message
written in pieces by several processes at once interleaves within lines),
else prints the lines that differ from the first. Usage: intact_lines.py
FILE TEXT"""
import sys

lines = [l.rstrip("\n") for l in open(sys.argv[1], errors="replace")
         if sys.argv[2] in l]
broken = [l for l in lines if l != lines[0]] if lines else ["(no line)"]
print(f"{len(lines)} intact" if not broken else "\n".join(broken))
