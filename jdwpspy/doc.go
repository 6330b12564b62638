// Package jdwpspy decodes a debugger's JDWP traffic for people: the
// Inspector takes Observations from a forwarding path (the proxy's), decodes
// them on its own goroutine into Records (command names, reply latency,
// EventRequest.Set and Event.Composite in depth, names learned from earlier
// replies), keeps the newest in a ring and hands them to subscribers (the
// spy view, `ddmtui serve`'s log). Observing never blocks the forwarding
// path. The package knows nothing of ports or attachments; it imports only
// the codecs (jdwp, internal/wire) and internal/safetext.
package jdwpspy
