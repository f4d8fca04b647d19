"""The distribution-free 95 % interval of a median, for bench scripts that
pair rounds (bench/fio_compare.sh, bench/self_ab.sh): the order statistics
x(k)..x(n+1-k), 1-based, with k the largest whole number for which
P(Binomial(n, 1/2) < k) <= 2.5 % — the sign-test interval, which holds
whatever the rounds' distribution. None below 6 values (no such k)."""
import math


def median_interval(xs):
    xs, n = sorted(xs), len(xs)
    k = 0
    while sum(math.comb(n, j) for j in range(k + 1)) / 2**n <= 0.025:
        k += 1
    return (xs[k - 1], xs[n - k]) if k >= 1 else None
