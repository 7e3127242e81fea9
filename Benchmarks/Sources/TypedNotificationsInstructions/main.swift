// Runs one scenario a given number of times, for counting instructions with `valgrind --tool=callgrind`.
// `instructions.sh` beside Package.swift runs it and prints the table; run that script, not this tool.
//
//     TypedNotificationsInstructions <scenario> <typed|twin> <operations>
//
// Scenarios: post-0, post-1, post-10, post-100 (a post with that many observers), observe-cancel (observe, then
// cancel, with one long-lived observer present). The twin is plain NotificationCenter doing the same work (see Fixtures.swift).
import BenchmarkScenarios
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let operations = Int(arguments[arguments.startIndex + 2]) else {
    print(
        "usage: TypedNotificationsInstructions <post-0|post-1|post-10|post-100|observe-cancel> <typed|twin> <operations>"
    )
    exit(2)
}
let scenario = arguments[arguments.startIndex]
let typed = arguments[arguments.startIndex + 1] == "typed"

switch scenario {
case "post-0", "post-1", "post-10", "post-100":
    let observers = Int(scenario.dropFirst("post-".count))!
    if typed {
        let fixture = TypedFixture(observers: observers)
        fixture.post(operations)
        precondition(fixture.sink.value == observers * operations, "a delivery was lost")
    } else {
        let fixture = PlainFixture(observers: observers)
        fixture.post(operations)
        precondition(fixture.sink.value == observers * operations, "a delivery was lost")
    }
case "observe-cancel":
    if typed {
        TypedFixture(observers: 1).observeThenCancel(operations)
    } else {
        PlainFixture(observers: 1).observeThenRemove(operations)
    }
default:
    print("unknown scenario \(scenario)")
    exit(2)
}
