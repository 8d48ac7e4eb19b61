package heaprows

// MaxPending lets tests force many string passes.
var MaxPending = &maxPending
