package scene

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// plantFiller plants opts.Filler: objects held by one Store under a JNI
// global root, each of them holding nothing but its own string value. The
// objects themselves are not kept: the model streams them when it writes
// (the same ones, from the same seed), so a scene embeds in a heap of
// millions of objects.
func (b *builder) plantFiller() {
	if len(b.opts.Filler) == 0 {
		return
	}
	m, c, A := b.m, b.c, heapApp
	f := &filler{m: m, seed: b.opts.Seed, dalvik: b.dalvik, compressed: b.compressed}
	ids := 0
	for _, cc := range b.opts.Filler {
		if cc.Instances < 0 {
			m.fail("filler %q: %d instances", cc.Name, cc.Instances)
			return
		}
		kind := fillerKind{name: cc.Name, n: cc.Instances}
		elem, isArray := strings.CutSuffix(cc.Name, "[]")
		if isArray {
			for _, p := range []hprof.Type{hprof.TypeBoolean, hprof.TypeChar, hprof.TypeFloat, hprof.TypeDouble,
				hprof.TypeByte, hprof.TypeShort, hprof.TypeInt, hprof.TypeLong} {
				if p.String() == elem {
					kind.prim = p
				}
			}
		}
		k := m.byName[cc.Name]
		switch {
		case cc.Name == "java.lang.String":
			kind.str = c["String"]
			ids += cc.Instances // and the value arrays
		case kind.prim != 0:
		case isArray && elem != "":
			if k == nil {
				k = m.defClass(A, cc.Name, c["Object"])
			}
			kind.class = k
		case k != nil || cc.Name == "" || elem == "":
			m.fail("filler class %q is one of the scene's own", cc.Name)
			return
		default:
			kind.class = m.defClass(A, cc.Name, c["Object"], prim("mId", tInt), prim("mStamp", tLong), prim("mEnabled", tBool))
		}
		ids += cc.Instances
		f.kinds = append(f.kinds, kind)
	}
	// Reserve the filler's ids, then list the items for the Store.
	f.base = m.next[A]
	m.next[A] += hprof.ID(16 * ids)
	var items []hprof.ID
	var size uint64
	if err := f.each(func(o *object, item bool) error {
		if item {
			items = append(items, o.id)
		}
		size += o.shallow
		return nil
	}); err != nil {
		m.fail("%v", err)
		return
	}
	m.stream = func(fn func(*object) error) error {
		return f.each(func(o *object, _ bool) error { return fn(o) })
	}
	b.filler = f
	arr := m.array(A, c["Object[]"], items...)
	store := m.instance(A, c["Store"], vals{"items": uint64(arr)})
	m.root(hprof.SubRootJNIGlobal, store)
	b.e.Retained = append(b.e.Retained, Object{ID: store, Class: b.classOf(store), Why: "every filler object",
		Retained: b.shallow(store, arr) + size})
}

// filler generates the filler objects, the same ones on every call.
type filler struct {
	m     *model
	seed  uint64
	base  hprof.ID
	kinds []fillerKind
	// The String layout (see builder).
	dalvik, compressed bool
}

type fillerKind struct {
	name  string
	n     int
	str   *class     // java.lang.String
	prim  hprof.Type // a primitive array
	class *class     // an instance or object array class
}

// each calls fn with every filler object; item says whether the Store
// holds it (a String's value array it does not).
func (f *filler) each(fn func(o *object, item bool) error) error {
	m := f.m
	rnd := rand.New(rand.NewPCG(f.seed, 0x66696c6c))
	id := f.base
	next := func() hprof.ID { id += 16; return id - 16 }
	n := 0
	for _, k := range f.kinds {
		for range k.n {
			var o *object
			switch {
			case k.str != nil:
				s := fmt.Sprintf("item-%d-%x", n, rnd.Uint32())
				t, data := hprof.TypeChar, utf16(s)
				if f.compressed {
					t, data = hprof.TypeByte, []byte(s)
				}
				value := m.newPrims(next(), heapApp, t, data)
				if err := fn(value, false); err != nil {
					return err
				}
				v := vals{"value": uint64(value.id)}
				if !m.std {
					v["count"] = uint64(len(s))
				}
				if f.dalvik {
					v["offset"] = 0
				}
				o = m.newInstance(next(), heapApp, k.str, v)
			case k.prim != 0:
				data := make([]byte, rnd.IntN(33)*k.prim.Size(m.idSize))
				for i := range data {
					data[i] = byte(rnd.Uint32())
				}
				o = m.newPrims(next(), heapApp, k.prim, data)
			case strings.HasSuffix(k.class.name, "[]"):
				o = m.newArray(next(), heapApp, k.class, make([]hprof.ID, rnd.IntN(9)))
			default:
				o = m.newInstance(next(), heapApp, k.class, vals{"mId": uint64(n), "mStamp": rnd.Uint64() >> 1, "mEnabled": uint64(n % 2)})
			}
			if err := fn(o, true); err != nil {
				return err
			}
			n++
		}
	}
	return m.err
}
