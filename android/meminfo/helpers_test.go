package meminfo

import "fmt"

func fmtInt(v int64) string { return fmt.Sprint(v) }
func fmtAny(v any) string   { return fmt.Sprint(v) }
