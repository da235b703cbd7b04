"""Writes N test inputs near the diabetes data: rows drawn with replacement
(seeded), each input moved by Gaussian noise of a tenth of its column's sd,
rounded as the data are; with --y, the drawn row's target is kept."""
import csv, random, statistics, sys

def main():
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    keep_y = "--y" in sys.argv[4:]
    rows = list(csv.reader(open(src)))
    head, data = rows[0], [[float(v) for v in r] for r in rows[1:]]
    d = len(head) - 1
    sd = [statistics.pstdev(r[j] for r in data) for j in range(d)]
    rng = random.Random(19)
    with open(dst, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head if keep_y else head[:d])
        for _ in range(n):
            r = rng.choice(data)
            x = [round(r[j] + 0.1 * sd[j] * rng.gauss(0, 1), 4) for j in range(d)]
            w.writerow(x + ([r[d]] if keep_y else []))

main()
