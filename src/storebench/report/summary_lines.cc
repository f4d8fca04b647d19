#include "storebench/report/summary_lines.h"

namespace storebench::report {
namespace {

using enum SummaryLineKind;

// In the order docs/reading-results.md lists them, each with the test that
// shows the behaviour it describes.
constexpr SummaryLine kLines[] = {
    {kTotals, "", false, R"md(`N ops in T s: R ops/s, E errors`)md",
     R"md(— measured ops only: the warm-up (`--warmup`, ops that *started* before its end) is left out )md"
     R"md((`Runner.WarmupIsExcluded`). With errors, their share and the rate of ok ops follow; )md"
     R"md(`(interrupted)` after SIGINT (`Cli.SigintStillWritesValidResults`), `(stopped: --max-errors )md"
     R"md(reached)` (`Cli.MaxErrorsStopsTheRunWritesResultsAndExitsOne`), `, N unfinished` for ops in )md"
     R"md(flight at the end. An error share above `--max-error-ratio` (default 0.01) makes the exit code 1)md"
     R"md( (`Reliability.ErrorShareAboveTheLimitExitsOneWithResults`).)md"},
    {kNamed, "UNSTEADY", false, R"md(`UNSTEADY PLATFORM: …`)md",
     R"md((first, when it applies) — the platform meter saw the platform run below 0.8 of its calibrated )md"
     R"md(speed for more than 5% of the measured time (`platform.unsteady` in the JSON): the figures )md"
     R"md(below include its slowdowns, and a comparison with another run may compare platforms )md"
     R"md((`PlatformText.AnUnsteadyRunSaysSoFirst`).)md"},
    {kNamed, "speed", false, R"md(`speed`)md",
     R"md(— the platform meter (a fixed unit of integer work timed every 40 ms on each of the workers' CPUs, )md"
     R"md(at their priority): the platform's mean speed against its calibration at start-up (1.0), the )md"
     R"md(slowest unit, the slowest interval and when, the share of time below 0.8, the time the platform )md"
     R"md(stopped the meter (a pause, a quota), the core contention (how fast lookup-heavy work ran against )md"
     R"md(its calibration: it drops when another tenant shares the core, and with the engine's own threads, )md"
     R"md(so it is reported and not used in the causes, docs/platform.md), then what the kernel says: the )md"
     R"md(cgroup's throttled time, )md"
     R"md(steal, PSI cpu `some` — or `unknown` where this machine has no such source — and the meter's own )md"
     R"md(cost (`PlatformTimeline.AStopIsWorkTheCpuCouldNotDo`, `PlatformMeter.TicksComeAtItsPaceWithCalibratedUnits`).)md"},
    {kNamed, "latency", false, R"md(`latency`)md",
     R"md((closed loop) — percentiles of the service time, from each op's actual start to its end. In a )md"
     R"md(closed loop the response time *is* the service time: the next op waits for the last, so a stall )md"
     R"md(delays one op and the ops that were never sent are not counted anywhere )md"
     R"md((`Runner.ClosedLoopReportsTheStallAsWhatItIs`). Percentiles are exact by HdrHistogram's )md"
     R"md(definition (the value at rank ⌈p/100·n⌉, within the histogram's 3 significant digits): )md"
     R"md(`Interop.HistogramLogProcessorReadsARunsLogWithNoOptions`.)md"},
    {kNamed, "cpu", false, R"md(`cpu`)md",
     R"md(— the whole process's user and system time and context switches over the measured window )md"
     R"md((getrusage).)md"},
    {kNamed, "cache", false, R"md(`cache`)md",
     R"md(— the data set's page-cache residency before and after, and the state asked for (`--cache )md"
     R"md(asis|warm|cold|drop`), by `cachestat(2)` or `mincore` )md"
     R"md((`FileCli.ColdCacheEmptiesAndWarmCacheFillsTheResidency`).)md"},
    {kNamed, "io", false, R"md(`io`)md",
     R"md(— bytes asked for, bytes the syscalls moved, bytes read from the device, read amplification )md"
     R"md((device / asked) and syscalls per op, for backends that count them (`FileCli.AccountingAddsUp`);)md"
     R"md( otherwise the device reads and the bytes read syscalls returned (`/proc/self/io`).)md"},
    {kBackend, "", false, R"md(backend lines)md",
     R"md((`rocksdb`, `file`, `whisper`) — the backend's own figures.)md"},
    {kKind, "", false, R"md(one line per op kind)md",
     R"md(when a run has several (`get`, `put`, …, or `GROUP/KIND` with `--class`: )md"
     R"md(`Runner.GroupsAreReportedSeparately`).)md"},
    {kNotSustained, "NOT", true, R"md(`NOT SUSTAINED: …`)md",
     R"md((first, when it applies) — the run fell behind: it achieved less than the offered rate, and the )md"
     R"md(due ops it never started are counted (`… due ops never started`); its latency is that of an )md"
     R"md(overloaded run (`Runner.OverloadIsVisibleAsBacklogAndUnstartedOps`).)md"},
    {kNamed, "response", true, R"md(`response`)md",
     R"md(— from each op's *intended* start (its arrival on the schedule) to its end: what a user of the )md"
     R"md(system would have waited. A stall shows here in every op due during it )md"
     R"md((`Runner.OpenLoopResponseTimeShowsTheStallServiceTimeDoesNot`, )md"
     R"md(`Cli.OpenLoopStallShowsInResponseNotService`).)md"},
    {kNamed, "ideal", true, R"md(`ideal`)md",
     R"md(— the response times an ideal client would have reported: the same arrivals and the same )md"
     R"md(measured service times through as many FIFO servers as workers, with no client or platform delay)md"
     R"md( in between (`IdealClient.OneServerQueuesOpsThatArriveWhileItIsBusy`, )md"
     R"md(`IdealClientRun.AStallInTheEngineIsQueueingTheIdealClientSeesToo`).)md"},
    {kNamed, "steady", true, R"md(`steady`)md",
     R"md(— the steady-platform ideal client: the ideal client again, with each op's service time replaced )md"
     R"md(by the work its CPU could do at its calibrated speed while the op ran, less the worker's own wait )md"
     R"md(for its CPU inside the op (another thread held it; measured for ops of 0.5 ms or longer) — this )md"
     R"md(engine on a steady platform with a CPU of its own. The platform meter's share is what the speed )md"
     R"md(removed; the waits for a CPU go to the CPU's holders (docs/platform.md; )md"
     R"md(`IdealClient.TheSteadyReplayRemovesAKnownSlowdown`, `IdealClient.TheOwnCpuReplayLeavesOutTheWorkersWaitForItsCpu`).)md"},
    {kNamed, "service", true, R"md(`service`)md",
     R"md(— from each op's actual start to its end: the engine's time.)md"},
    {kNamed, "beyond", true, R"md(`beyond`)md",
     R"md(— observed minus ideal at p50, p99, p99.9 and max: what the client, the engine's threads and the)md"
     R"md( platform added to the queueing an ideal client would also have seen. `inexact: N ops were not )md"
     R"md(logged` when the ideal client's log overflowed.)md"},
    {kNamed, "split", true, R"md(`split`)md",
     R"md(— the response time's two parts: start lag (actual − intended start: waiting for a worker, a )md"
     R"md(CPU, or behind earlier ops) and service )md"
     R"md((`Dispatch.IntervalMaximaBoundTheStartLagsRecordedInThem`).)md"},
    {kNamed, "schedule", true, R"md(`schedule`)md",
     R"md(— offered and achieved rate, `(sustained)` or `(not sustained)` (sustained: at least 99% of the )md"
     R"md(offered ops ran, or all but one per worker, and the due ops never started are at most 1% of )md"
     R"md(those that ran: `IdealClientRun.SustainedFollowsAchievedAgainstOffered`), the largest backlog )md"
     R"md((arrivals due and not yet started) and the largest start lag seen in any interval, and `N due )md"
     R"md(ops never started` at the end. A second `schedule` line, `no arrivals were due in the measured )md"
     R"md(window`, says why a run measured 0 ops: its rate stayed zero (a sine below zero, steps at 0) or its )md"
     R"md(next arrival lay beyond the end (`BadValues.AScheduleWithNoArrivalEndsOnTimeWithZeroOps`).)md"},
    {kNamed, "load", true, R"md(`load`)md",
     R"md((phase 2 of `--two-phase`) — each interval's effective load, offered ÷ (phase 1's capacity × )md"
     R"md(the platform's speed in that interval): the median and the highest, and when; a platform that )md"
     R"md(slowed down raised the load the engine saw (`PlatformText.TheEffectiveLoadFollowsThePlatformsSpeed`).)md"},
    {kNamed, "engine", true, R"md(`engine`)md",
     R"md((phase 2 of `--two-phase`) — how busy the engine was (its ops' service time summed ÷ (servers × )md"
     R"md(measured time)) and its mean service time against phase 1's; when it served 5% slower or more, )md"
     R"md(the offered rate as a share of what it could serve at that speed: above 1, the queue was the )md"
     R"md(engine's slowdown, whatever the client did (`PlatformText.TheEngineLineComparesPhaseTwoWithPhaseOne`).)md"},
    {kNamed, "platform", true, R"md(`platform`)md",
     R"md(— who held the CPU during the window: how long the workers waited on the run queue (and their )md"
     R"md(involuntary switches), the engine's own threads (by name), the client's threads (reporter, )md"
     R"md(hiccup meter), other processes on the workers' CPUs and steal; and the hiccup meter's p99 and )md"
     R"md(max (a thread that sleeps a fixed period and records how late it woke: the platform's own )md"
     R"md(stalls, `Runner.HiccupPeriodFollowsWhetherTheMeterHasACpu`). Run-queue wait per worker: )md"
     R"md(`CpuAccount.SlotsCountTheRunQueueWaitOfWorkersThatWereBehind`.)md"},
    {kNamed, "causes", true, R"md(`causes`)md",
     R"md(— the response tail's p99 and max split four ways: queueing behind the engine (what the ideal )md"
     R"md(client also waits, less the share the workers spent waiting for a CPU meanwhile), the engine's )md"
     R"md(threads, the client and the platform, by the CPU time each held on the workers' CPUs )md"
     R"md((`Causes.TheIdealClientsTailIsQueueingAndTheRestIsSplitByCpuHeld`; end to end: )md"
     R"md(`Cli.AnEnginesOwnDelaysAreReportedAsQueueingBehindTheEngine`, )md"
     R"md(`CpuShare.AnEnginesBurningThreadsAreReportedAsTheEnginesTail`, )md"
     R"md(`CpuShare.AHogOnTheWorkersCpuIsReportedAsThePlatformsTail`, )md"
     R"md(`Cli.WorkersThatOutnumberTheirCpusAreTheClientsTail`). The JSON's `causes.definition` states the)md"
     R"md( formula.)md"},
    {kNamed, "note", true, R"md(`note`)md",
     R"md(— one sentence naming the largest cause, with advice where there is one (fewer workers only when)md"
     R"md( they leave no CPU free). A second note, when the steady-platform ideal client's p99 is within )md"
     R"md(10x the service p99 and the run's is not, says how much of the rest is the platform's )md"
     R"md((`Causes.TheSteadyClientMovesTheStretchedServiceToThePlatform`).)md"},
};

}  // namespace

std::span<const SummaryLine> SummaryLines() { return kLines; }

std::string SummaryLinesMarkdown() {
  std::string s;
  for (bool open_loop : {false, true}) {
    s += open_loop ? "### Lines of an open loop\n\n" : "### Lines of every run\n\n";
    for (const SummaryLine& l : kLines)
      if (l.open_loop == open_loop) s += std::string("* **") + l.heading + "** " + l.meaning + "\n";
    if (!open_loop) s += "\n";
  }
  return s;
}

}  // namespace storebench::report
