"""Largest difference between two predictions.csv files, per predictive
column, relative to max(|value|, the row's sd of the same kind)."""
import csv, sys

a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
head = a[0]
assert head == b[0] and len(a) == len(b)
for j, name in enumerate(head):
    if not (name.startswith("y_") or name.startswith("f_")):
        continue
    sd = head.index(name[:2] + "sd")
    worst = max(abs(float(r[j]) - float(s[j])) / max(abs(float(r[j])), float(r[sd]))
                for r, s in zip(a[1:], b[1:]))
    print(f"{name}: {worst:.2g}")
