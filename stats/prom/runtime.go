package prom

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"
)

// The Go runtime's series: the names, types, HELP texts and meanings of
// the Prometheus Go client's Go collector (client_golang v1.25,
// collectors.NewGoCollector with its defaults), which gopcu served until
// it wrote the page itself. cmd/pcubench reads go_memstats_mallocs_total
// and go_gc_duration_seconds_count (allocations and GC cycles per radio
// block), tests/chaos go_goroutines and go_memstats_heap_alloc_bytes.
//
// Sources: runtime/metrics (metrics.Read does not stop the world, unlike
// runtime.ReadMemStats, so a scrape never pauses the engine) for the
// go_memstats_* figures, each the sum of the runtime/metrics names its
// entry lists (the sums the runtime itself makes for runtime.MemStats:
// go_memstats_mallocs_total = /gc/heap/allocs:objects +
// /gc/heap/tiny/allocs:objects is MemStats.Mallocs, the cumulative count
// of heap objects allocated); runtime/debug.ReadGCStats (reads the pause
// history under the heap lock, no stop-the-world) for the GC pause summary
// go_gc_duration_seconds, whose _count is NumGC, the completed GC cycles
// (= /gc/cycles/total:gc-cycles), and for the last GC's time;
// runtime.ThreadCreateProfile for go_threads (OS threads created) and
// runtime.NumGoroutine for go_goroutines (user goroutines; runtime/metrics'
// /sched/goroutines:goroutines also counts the runtime's own), as the
// client did. The client's process collector (process_*) is not
// reproduced: nothing reads it (/proc/PID/status has the same).

const (
	rtAllocsObjects = iota
	rtTinyAllocs
	rtFreesObjects
	rtAllocsBytes
	rtHeapObjects
	rtHeapGoal
	rtGOGC
	rtMemLimit
	rtGOMAXPROCS
	rtHeapObjectsBytes
	rtHeapUnused
	rtHeapFree
	rtHeapReleased
	rtHeapStacks
	rtOSStacks
	rtMetaOther
	rtMCacheInuse
	rtMCacheFree
	rtMSpanInuse
	rtMSpanFree
	rtProfBuckets
	rtOther
	rtTotal
	rtCount
)

var rtNames = [rtCount]string{
	rtAllocsObjects:    "/gc/heap/allocs:objects",
	rtTinyAllocs:       "/gc/heap/tiny/allocs:objects",
	rtFreesObjects:     "/gc/heap/frees:objects",
	rtAllocsBytes:      "/gc/heap/allocs:bytes",
	rtHeapObjects:      "/gc/heap/objects:objects",
	rtHeapGoal:         "/gc/heap/goal:bytes",
	rtGOGC:             "/gc/gogc:percent",
	rtMemLimit:         "/gc/gomemlimit:bytes",
	rtGOMAXPROCS:       "/sched/gomaxprocs:threads",
	rtHeapObjectsBytes: "/memory/classes/heap/objects:bytes",
	rtHeapUnused:       "/memory/classes/heap/unused:bytes",
	rtHeapFree:         "/memory/classes/heap/free:bytes",
	rtHeapReleased:     "/memory/classes/heap/released:bytes",
	rtHeapStacks:       "/memory/classes/heap/stacks:bytes",
	rtOSStacks:         "/memory/classes/os-stacks:bytes",
	rtMetaOther:        "/memory/classes/metadata/other:bytes",
	rtMCacheInuse:      "/memory/classes/metadata/mcache/inuse:bytes",
	rtMCacheFree:       "/memory/classes/metadata/mcache/free:bytes",
	rtMSpanInuse:       "/memory/classes/metadata/mspan/inuse:bytes",
	rtMSpanFree:        "/memory/classes/metadata/mspan/free:bytes",
	rtProfBuckets:      "/memory/classes/profiling/buckets:bytes",
	rtOther:            "/memory/classes/other:bytes",
	rtTotal:            "/memory/classes/total:bytes",
}

// How a go_* series gets its value.
const (
	fromMetrics    = iota // the sum of the listed runtime/metrics values
	fromGCStats           // the go_gc_duration_seconds summary
	fromLastGC            // GCStats.LastGC in Unix seconds
	fromThreads           // runtime.ThreadCreateProfile
	fromGoroutines        // runtime.NumGoroutine
	fromInfo              // go_info{version} 1
)

type goSeries struct {
	name, typ, help string
	from            int
	sum             []int // rtNames indices, fromMetrics
}

// goSeriesList is the page's go_* part, in name order.
var goSeriesList = []goSeries{
	{"go_gc_duration_seconds", "summary", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", fromGCStats, nil},
	{"go_gc_gogc_percent", "gauge", "Heap size target percentage configured by the user, otherwise 100. This value is set by the GOGC environment variable, and the runtime/debug.SetGCPercent function. Sourced from /gc/gogc:percent.", fromMetrics, []int{rtGOGC}},
	{"go_gc_gomemlimit_bytes", "gauge", "Go runtime memory limit configured by the user, otherwise math.MaxInt64. This value is set by the GOMEMLIMIT environment variable, and the runtime/debug.SetMemoryLimit function. Sourced from /gc/gomemlimit:bytes.", fromMetrics, []int{rtMemLimit}},
	{"go_goroutines", "gauge", "Number of goroutines that currently exist.", fromGoroutines, nil},
	{"go_info", "gauge", "Information about the Go environment.", fromInfo, nil},
	{"go_memstats_alloc_bytes", "gauge", "Number of bytes allocated in heap and currently in use. Equals to /memory/classes/heap/objects:bytes.", fromMetrics, []int{rtHeapObjectsBytes}},
	{"go_memstats_alloc_bytes_total", "counter", "Total number of bytes allocated in heap until now, even if released already. Equals to /gc/heap/allocs:bytes.", fromMetrics, []int{rtAllocsBytes}},
	{"go_memstats_buck_hash_sys_bytes", "gauge", "Number of bytes used by the profiling bucket hash table. Equals to /memory/classes/profiling/buckets:bytes.", fromMetrics, []int{rtProfBuckets}},
	{"go_memstats_frees_total", "counter", "Total number of heap objects frees. Equals to /gc/heap/frees:objects + /gc/heap/tiny/allocs:objects.", fromMetrics, []int{rtFreesObjects, rtTinyAllocs}},
	{"go_memstats_gc_sys_bytes", "gauge", "Number of bytes used for garbage collection system metadata. Equals to /memory/classes/metadata/other:bytes.", fromMetrics, []int{rtMetaOther}},
	{"go_memstats_heap_alloc_bytes", "gauge", "Number of heap bytes allocated and currently in use, same as go_memstats_alloc_bytes. Equals to /memory/classes/heap/objects:bytes.", fromMetrics, []int{rtHeapObjectsBytes}},
	{"go_memstats_heap_idle_bytes", "gauge", "Number of heap bytes waiting to be used. Equals to /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", fromMetrics, []int{rtHeapReleased, rtHeapFree}},
	{"go_memstats_heap_inuse_bytes", "gauge", "Number of heap bytes that are in use. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes", fromMetrics, []int{rtHeapObjectsBytes, rtHeapUnused}},
	{"go_memstats_heap_objects", "gauge", "Number of currently allocated objects. Equals to /gc/heap/objects:objects.", fromMetrics, []int{rtHeapObjects}},
	{"go_memstats_heap_released_bytes", "gauge", "Number of heap bytes released to OS. Equals to /memory/classes/heap/released:bytes.", fromMetrics, []int{rtHeapReleased}},
	{"go_memstats_heap_sys_bytes", "gauge", "Number of heap bytes obtained from system. Equals to /memory/classes/heap/objects:bytes + /memory/classes/heap/unused:bytes + /memory/classes/heap/released:bytes + /memory/classes/heap/free:bytes.", fromMetrics, []int{rtHeapObjectsBytes, rtHeapUnused, rtHeapReleased, rtHeapFree}},
	{"go_memstats_last_gc_time_seconds", "gauge", "Number of seconds since 1970 of last garbage collection.", fromLastGC, nil},
	{"go_memstats_mallocs_total", "counter", "Total number of heap objects allocated, both live and gc-ed. Semantically a counter version for go_memstats_heap_objects gauge. Equals to /gc/heap/allocs:objects + /gc/heap/tiny/allocs:objects.", fromMetrics, []int{rtAllocsObjects, rtTinyAllocs}},
	{"go_memstats_mcache_inuse_bytes", "gauge", "Number of bytes in use by mcache structures. Equals to /memory/classes/metadata/mcache/inuse:bytes.", fromMetrics, []int{rtMCacheInuse}},
	{"go_memstats_mcache_sys_bytes", "gauge", "Number of bytes used for mcache structures obtained from system. Equals to /memory/classes/metadata/mcache/inuse:bytes + /memory/classes/metadata/mcache/free:bytes.", fromMetrics, []int{rtMCacheInuse, rtMCacheFree}},
	{"go_memstats_mspan_inuse_bytes", "gauge", "Number of bytes in use by mspan structures. Equals to /memory/classes/metadata/mspan/inuse:bytes.", fromMetrics, []int{rtMSpanInuse}},
	{"go_memstats_mspan_sys_bytes", "gauge", "Number of bytes used for mspan structures obtained from system. Equals to /memory/classes/metadata/mspan/inuse:bytes + /memory/classes/metadata/mspan/free:bytes.", fromMetrics, []int{rtMSpanInuse, rtMSpanFree}},
	{"go_memstats_next_gc_bytes", "gauge", "Number of heap bytes when next garbage collection will take place. Equals to /gc/heap/goal:bytes.", fromMetrics, []int{rtHeapGoal}},
	{"go_memstats_other_sys_bytes", "gauge", "Number of bytes used for other system allocations. Equals to /memory/classes/other:bytes.", fromMetrics, []int{rtOther}},
	{"go_memstats_stack_inuse_bytes", "gauge", "Number of bytes obtained from system for stack allocator in non-CGO environments. Equals to /memory/classes/heap/stacks:bytes.", fromMetrics, []int{rtHeapStacks}},
	{"go_memstats_stack_sys_bytes", "gauge", "Number of bytes obtained from system for stack allocator. Equals to /memory/classes/heap/stacks:bytes + /memory/classes/os-stacks:bytes.", fromMetrics, []int{rtHeapStacks, rtOSStacks}},
	{"go_memstats_sys_bytes", "gauge", "Number of bytes obtained from system. Equals to /memory/classes/total:byte.", fromMetrics, []int{rtTotal}},
	{"go_sched_gomaxprocs_threads", "gauge", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously. Sourced from /sched/gomaxprocs:threads.", fromMetrics, []int{rtGOMAXPROCS}},
	{"go_threads", "gauge", "Number of OS threads created.", fromThreads, nil},
}

// gcQuantiles are go_gc_duration_seconds' quantiles: ReadGCStats fills
// PauseQuantiles[0..4] with the minimum, 25th, 50th, 75th percentiles and
// the maximum of the recent pauses.
var gcQuantiles = [...]string{"0", "0.25", "0.5", "0.75", "1"}

// runtimeReader holds one scrape's reading, reused from scrape to scrape
// (no allocation once the buffers have grown).
type runtimeReader struct {
	samples    [rtCount]metrics.Sample
	gc         debug.GCStats
	threads    int
	goroutines int
}

func (r *runtimeReader) init() {
	for i := range r.samples {
		r.samples[i].Name = rtNames[i]
	}
	r.gc.PauseQuantiles = make([]time.Duration, len(gcQuantiles))
}

func (r *runtimeReader) read() {
	metrics.Read(r.samples[:])
	debug.ReadGCStats(&r.gc)
	r.threads, _ = runtime.ThreadCreateProfile(nil)
	r.goroutines = runtime.NumGoroutine()
}

// value is runtime/metrics name i's value (0 where this runtime lacks it).
func (r *runtimeReader) value(i int) float64 {
	switch v := r.samples[i].Value; v.Kind() {
	case metrics.KindUint64:
		return float64(v.Uint64())
	case metrics.KindFloat64:
		return v.Float64()
	}
	return 0
}

// mallocs is go_memstats_mallocs_total.
func (r *runtimeReader) mallocs() float64 {
	return r.value(rtAllocsObjects) + r.value(rtTinyAllocs)
}

func (r *runtimeReader) appendText(b []byte) []byte {
	for i := range goSeriesList {
		s := &goSeriesList[i]
		b = appendHelpType(b, s.name, s.help, s.typ)
		switch s.from {
		case fromGCStats:
			for q, l := range gcQuantiles {
				b = append(b, s.name...)
				b = append(b, `{quantile="`...)
				b = append(b, l...)
				b = append(b, "\"} "...)
				b = appendFloat(b, r.gc.PauseQuantiles[q].Seconds())
				b = append(b, '\n')
			}
			b = append(b, s.name...)
			b = append(b, "_sum "...)
			b = appendFloat(b, r.gc.PauseTotal.Seconds())
			b = append(b, '\n')
			b = append(b, s.name...)
			b = append(b, "_count "...)
			b = strconv.AppendInt(b, r.gc.NumGC, 10)
			b = append(b, '\n')
			continue
		case fromInfo:
			b = append(b, s.name...)
			b = append(b, `{version="`...)
			b = appendLabelValue(b, runtime.Version())
			b = append(b, "\"} 1\n"...)
			continue
		}
		var v float64
		switch s.from {
		case fromMetrics:
			for _, i := range s.sum {
				v += r.value(i)
			}
		case fromLastGC:
			v = float64(r.gc.LastGC.UnixNano()) / 1e9
			if r.gc.NumGC == 0 {
				v = 0
			}
		case fromThreads:
			v = float64(r.threads)
		case fromGoroutines:
			v = float64(r.goroutines)
		}
		if math.IsNaN(v) {
			v = 0
		}
		b = append(b, s.name...)
		b = append(b, ' ')
		b = appendFloat(b, v)
		b = append(b, '\n')
	}
	return b
}
