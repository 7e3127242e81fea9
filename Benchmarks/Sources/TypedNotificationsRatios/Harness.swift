import BenchmarkScenarios
import CHeapStats
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Options

struct Options {
    var smoke = false
    var strict = false
    var rounds = 21
    var roundMilliseconds = 20.0
    var warmupMilliseconds = 30.0
    var observationsPerMemoryRound = 1_000
    var filter: String?
    var chartPath: String?

    static let usage = """
        USAGE: swift run -c release TypedNotificationsRatios [--smoke] [--strict] [--rounds N] [--round-ms MS] [--filter TEXT]
               [--chart PATH]

          --smoke        3 rounds of about 1 ms per side: checks that every scenario runs and delivers; ratios are rough.
          --strict       exit 1 when a ratio misses its target (by default only a failed delivery check exits 1).
          --rounds N     paired rounds per scenario (default 21).
          --round-ms MS  target duration of one round of one side, in milliseconds (default 20).
          --filter TEXT  only the scenarios whose title contains TEXT.
          --chart PATH   only the posts with 0 to 1,000 observers (typed, plain, MainActorMessage), drawn as an SVG
                         chart at PATH (the Performance article's: ../Docs/TypedNotifications.docc/Resources/post-cost.svg).
        """

    static func parse(_ arguments: ArraySlice<String>) -> Options {
        var options = Options()
        var arguments = arguments[...]
        func value(after flag: String) -> String {
            guard let next = arguments.popFirst() else { fail("\(flag) needs a value") }
            return next
        }
        while let argument = arguments.popFirst() {
            switch argument {
            case "--smoke":
                options.smoke = true
                options.rounds = 3
                options.roundMilliseconds = 1
                options.warmupMilliseconds = 2
                options.observationsPerMemoryRound = 200
            case "--strict": options.strict = true
            case "--rounds":
                guard let rounds = Int(value(after: argument)), rounds > 0 else {
                    fail("--rounds needs a positive number")
                }
                options.rounds = rounds
            case "--round-ms":
                guard let ms = Double(value(after: argument)), ms > 0 else {
                    fail("--round-ms needs a positive number")
                }
                options.roundMilliseconds = ms
            case "--filter": options.filter = value(after: argument)
            case "--chart": options.chartPath = value(after: argument)
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("error: \(message)\n\n\(usage)\n".utf8))
        exit(2)
    }
}

// MARK: - Clock and statistics

@inline(__always)
func nowNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Nanoseconds per operation of one round of `count` operations.
@inline(never)
func nanosecondsPerOperation(_ run: (Int) -> Void, count: Int) -> Double {
    let start = nowNanoseconds()
    run(count)
    return Double(nowNanoseconds() - start) / Double(count)
}

/// The `p`-quantile (0…1) of `values`, interpolated between neighbours.
func quantile(_ values: [Double], _ p: Double) -> Double {
    precondition(!values.isEmpty)
    let sorted = values.sorted()
    let position = p * Double(sorted.count - 1)
    let lower = Int(position.rounded(.down))
    let upper = min(lower + 1, sorted.count - 1)
    return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
}

func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

// MARK: - Scenarios

/// One side of a pair: runs `count` operations; each operation should reach `deliveriesPerOperation` observers.
struct Side {
    let run: (Int) -> Void
    let sink: Sink
}

/// The two sides of one timed scenario, built fresh for that scenario.
struct Pair {
    let typed: Side
    let twin: Side
    /// Observer calls per operation on either side: what the sinks must add up to.
    let deliveriesPerOperation: Int
}

struct TimedScenario {
    let title: String
    let twin: String
    let target: Double?
    let stretch: Double?
    let make: @MainActor () -> Pair
}

/// Bytes one retained observation keeps on the heap, measured by adding `count` observers to a fixture that already
/// has one (so its per-name structures exist) and reading the heap's bytes in use before and after.
struct MemoryScenario {
    let title: String
    let twin: String
    let target: Double?
    /// Adds `count` retained observers on each side and returns the bytes per observation (typed, twin).
    let measure: @MainActor (_ count: Int, _ typedFirst: Bool) -> (typed: Double, twin: Double)
}

struct Row {
    let title: String
    let twin: String
    let unit: String
    let typed: Double
    let twinValue: Double
    let ratio: Double
    let ratioLow: Double
    let ratioHigh: Double
    let target: Double?
    let stretch: Double?
    let failure: String?

    var meetsTarget: Bool? { target.map { ratio <= $0 } }
}

func heapBytesInUse() -> Int { Int(tn_heap_bytes_in_use()) }

// MARK: - Running

@MainActor
func run(_ scenario: TimedScenario, options: Options) -> Row {
    let pair = scenario.make()
    var operations = (typed: 0, twin: 0)

    // Warm up both sides (first-use caches, lazily created structures) and size the rounds from the slower side.
    func warmUp(_ side: Side) -> (perOperation: Double, operations: Int) {
        let budget = options.warmupMilliseconds * 1e6
        var count = 1
        var total = 0
        while true {
            let perOperation = nanosecondsPerOperation(side.run, count: count)
            total += count
            if perOperation * Double(count) >= budget / 4 || count >= 1 << 24 {
                // One more full-size run at the measured rate, for a steady state.
                let more = max(1, Int(budget / max(perOperation, 1)))
                let settled = nanosecondsPerOperation(side.run, count: more)
                return (settled, total + more)
            }
            count *= 2
        }
    }
    let typedWarm = warmUp(pair.typed)
    let twinWarm = warmUp(pair.twin)
    operations.typed += typedWarm.operations
    operations.twin += twinWarm.operations
    let slower = max(typedWarm.perOperation, twinWarm.perOperation, 1)
    let count = max(1, Int(options.roundMilliseconds * 1e6 / slower))

    var typedTimes: [Double] = []
    var twinTimes: [Double] = []
    var ratios: [Double] = []
    for round in 0..<options.rounds {
        let typed: Double
        let twin: Double
        if round.isMultiple(of: 2) {
            typed = nanosecondsPerOperation(pair.typed.run, count: count)
            twin = nanosecondsPerOperation(pair.twin.run, count: count)
        } else {
            twin = nanosecondsPerOperation(pair.twin.run, count: count)
            typed = nanosecondsPerOperation(pair.typed.run, count: count)
        }
        operations.typed += count
        operations.twin += count
        typedTimes.append(typed)
        twinTimes.append(twin)
        ratios.append(typed / twin)
    }

    var failures: [String] = []
    let expected = (
        typed: operations.typed * pair.deliveriesPerOperation, twin: operations.twin * pair.deliveriesPerOperation
    )
    if pair.typed.sink.value != expected.typed {
        failures.append("typed observers were called \(pair.typed.sink.value) times, expected \(expected.typed)")
    }
    if pair.twin.sink.value != expected.twin {
        failures.append(
            "\(scenario.twin) observers were called \(pair.twin.sink.value) times, expected \(expected.twin)")
    }
    return Row(
        title: scenario.title,
        twin: scenario.twin,
        unit: "ns",
        typed: median(typedTimes),
        twinValue: median(twinTimes),
        ratio: median(ratios),
        ratioLow: quantile(ratios, 0.25),
        ratioHigh: quantile(ratios, 0.75),
        target: scenario.target,
        stretch: scenario.stretch,
        failure: failures.isEmpty ? nil : failures.joined(separator: "; ")
    )
}

@MainActor
func run(_ scenario: MemoryScenario, options: Options) -> Row {
    var typed: [Double] = []
    var twin: [Double] = []
    var ratios: [Double] = []
    // Rounds are cheap (no timing), so the memory rows use at least 9 of them even in smoke mode.
    _ = scenario.measure(options.observationsPerMemoryRound, true)  // warm-up: first-use caches and lazy statics
    for round in 0..<max(options.rounds, 9) {
        let bytes = scenario.measure(options.observationsPerMemoryRound, round.isMultiple(of: 2))
        typed.append(bytes.typed)
        twin.append(bytes.twin)
        ratios.append(bytes.typed / bytes.twin)
    }
    let failure = heapBytesInUse() == 0 ? "no heap statistics on this platform" : nil
    return Row(
        title: scenario.title,
        twin: scenario.twin,
        unit: "B",
        typed: median(typed),
        twinValue: median(twin),
        ratio: median(ratios),
        ratioLow: quantile(ratios, 0.25),
        ratioHigh: quantile(ratios, 0.75),
        target: scenario.target,
        stretch: nil,
        failure: failure
    )
}

// MARK: - Printing

func machineDescription() -> String {
    var model = "unknown CPU"
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
        let colon = line.firstIndex(of: ":")
    {
        model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var load = ""
    if let loadavg = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) {
        load = ", load average " + loadavg.split(separator: " ").prefix(3).joined(separator: " ")
    }
    let cores = ProcessInfo.processInfo.activeProcessorCount
    return "\(cores) cores (nproc), \(model)\(load)"
}

func format(_ value: Double, unit: String) -> String {
    let number = value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
    return unit.isEmpty ? number : "\(number) \(unit)"
}

func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
    let count = text.count
    guard count < width else { return text }
    let padding = String(repeating: " ", count: width - count)
    return right ? padding + text : text + padding
}

func printHeader(options: Options) {
    #if DEBUG
    print("WARNING: debug build; ratios are meaningless. Use `swift run -c release TypedNotificationsRatios`.")
    #endif
    let mode = options.smoke ? "SMOKE (ratios rough, not judged)" : "full"
    print("TypedNotifications ratios: typed / twin, from paired rounds in one process (\(mode) run)")
    print("machine: \(machineDescription())")
    print(
        "rounds: \(options.rounds) pairs of ~\(format(options.roundMilliseconds, unit: "")) ms per side, alternating which side goes first;"
            + " memory: \(options.observationsPerMemoryRound) retained observations per round"
    )
    print(
        "payload: Tick { sequence: Int, price: Double, symbol: String (\"AAPL\", inline) }, 32 bytes; plain twin: userInfo[\"tick\"] as? Tick"
    )
    print("ratio = median of per-pair ratios (p25-p75 beside it); typed and twin columns are medians per operation")
    print("")
    print(
        pad("scenario", 46) + pad("twin", 18) + pad("typed", 11, right: true) + pad("twin", 11, right: true)
            + pad("ratio", 8, right: true) + "  " + pad("p25-p75", 14) + pad("target", 17) + "result"
    )
    print(String(repeating: "-", count: 46 + 18 + 11 + 11 + 8 + 2 + 14 + 17 + 6))
}

func printRow(_ row: Row, judged: Bool) {
    var target = "-"
    if let value = row.target {
        target = String(format: "<= %.2f", value)
        if let stretch = row.stretch { target += String(format: " (%.2f)", stretch) }
    }
    var result = "-"
    if let failure = row.failure {
        result = "ERROR: \(failure)"
    } else if let meets = row.meetsTarget {
        if !judged {
            result = meets ? "(pass)" : "(miss)"
        } else {
            result = meets ? "PASS" : "MISS"
            if meets, let stretch = row.stretch {
                result += row.ratio <= stretch ? ", stretch met" : ", stretch missed"
            }
        }
    }
    func short(_ value: Double) -> String { String(format: value >= 10 ? "%.0f" : "%.2f", value) }
    let spread = "\(short(row.ratioLow))-\(short(row.ratioHigh))"
    let ratio = String(format: row.ratio >= 10 ? "%.1f" : "%.3f", row.ratio)
    print(
        pad(row.title, 46) + pad(row.twin, 18) + pad(format(row.typed, unit: row.unit), 11, right: true)
            + pad(format(row.twinValue, unit: row.unit), 11, right: true)
            + pad(ratio, 8, right: true) + "  " + pad(spread, 14) + pad(target, 17) + result
    )
}
