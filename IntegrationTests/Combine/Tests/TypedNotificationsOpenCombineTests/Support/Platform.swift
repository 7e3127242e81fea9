// This package tests the publisher where Combine does not exist (Linux), by compiling the library's
// `NotificationPublisher.swift` against OpenCombine. Where Combine exists, the library compiles that file against
// Combine itself, and these tests, which import both the library and the OpenCombine build of the same file, would
// find every publisher API twice.
#if canImport(Combine)
#error("IntegrationTests/Combine runs where Combine does not exist; on Apple platforms the library has the publisher")
#endif
