public let placeholder = 1
