package progress

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// MinRedraw is the shortest time between two redraws: at most ten a second.
const MinRedraw = 100 * time.Millisecond

// Options configures a Display.
type Options struct {
	// Colour draws the frame with ANSI colours (off under NO_COLOR).
	Colour bool
	// Size returns the terminal's size; nil means 80×24.
	Size func() Size
	// Now returns the current time; nil means time.Now (tests fix it).
	Now func() time.Time
	// Tick is the redraw period; 0 means MinRedraw. A smaller value is
	// raised to MinRedraw.
	Tick time.Duration
}

// Display draws a Model on a terminal stream below the lines the run
// prints. Lines written to it (io.Writer) pass through above the frame,
// whole lines at a time; Close erases the frame and flushes any unfinished
// line, so that what stays on the screen is what a run without a terminal
// prints. A Display is safe for concurrent use.
type Display struct {
	mu      sync.Mutex
	out     io.Writer
	opts    Options
	model   *Model
	shown   int      // lines of the frame now on the screen
	frame   []string // those lines
	pending bytes.Buffer
	dirty   bool
	last    time.Time
	closed  bool
	// suspended is set between Suspend and Resume: the frame is off the
	// screen and nothing is drawn.
	suspended bool
	stop      chan struct{}
	done      chan struct{}
	// Redraws counts the frames drawn (tests read it).
	redraws int
}

// NewDisplay starts a display on out; it redraws on its own until Close.
func NewDisplay(out io.Writer, opts Options) *Display {
	if opts.Size == nil {
		opts.Size = func() Size { return Size{Width: 80, Height: 24} }
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Tick < MinRedraw {
		opts.Tick = MinRedraw
	}
	d := &Display{
		out:   out,
		opts:  opts,
		model: NewModel(opts.Now()),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	go d.loop()
	return d
}

// loop redraws every tick while something changed or a call is active
// (its elapsed time moves).
func (d *Display) loop() {
	defer close(d.done)
	t := time.NewTicker(d.opts.Tick)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			return
		case <-t.C:
			d.mu.Lock()
			if d.closed {
				d.mu.Unlock()
				return
			}
			_, running, waiting := d.model.Counts()
			if !d.suspended && (d.dirty || running+waiting > 0) {
				d.redraw()
			}
			d.mu.Unlock()
		}
	}
}

// Event folds e into the display's model; the next tick draws it.
func (d *Display) Event(e Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = d.opts.Now()
	}
	d.model.Apply(e)
	d.dirty = true
}

// Cancelling shows which calls are being cancelled and draws at once
// (Ctrl-C).
func (d *Display) Cancelling() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.model.Cancelling(d.opts.Now())
	if !d.suspended {
		d.redraw()
	}
}

// Suspend erases the frame and draws none until Resume: the process is
// about to be stopped (Ctrl-Z), and the shell will write below what stays
// on the screen. Lines written meanwhile pass through as they come.
func (d *Display) Suspend() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.suspended {
		return
	}
	d.suspended = true
	var b strings.Builder
	d.erase(&b)
	io.WriteString(d.out, b.String())
}

// Resume draws the frame again after Suspend (the process was continued,
// by fg or bg), below whatever the shell wrote meanwhile.
func (d *Display) Resume() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || !d.suspended {
		return
	}
	d.suspended = false
	d.last = time.Time{}
	d.redraw()
}

// Write passes p through above the frame. Only whole lines are written;
// an unfinished last line waits for its end (or for Close).
func (d *Display) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return d.out.Write(p)
	}
	d.pending.Write(p)
	i := bytes.LastIndexByte(d.pending.Bytes(), '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := append([]byte(nil), d.pending.Bytes()[:i+1]...)
	rest := append([]byte(nil), d.pending.Bytes()[i+1:]...)
	d.pending.Reset()
	d.pending.Write(rest)
	var b strings.Builder
	d.erase(&b)
	b.Write(lines)
	if !d.suspended {
		d.draw(&b)
	}
	_, err := io.WriteString(d.out, b.String())
	return len(p), err
}

// Close stops redrawing, erases the frame and writes any unfinished line.
// The frame is erased in the same critical section that closes the
// display, so that a line written concurrently lands below what stays.
func (d *Display) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	var b strings.Builder
	d.erase(&b)
	b.Write(d.pending.Bytes())
	d.pending.Reset()
	_, err := io.WriteString(d.out, b.String())
	d.mu.Unlock()
	close(d.stop)
	<-d.done
	return err
}

// redraw replaces the frame on the screen by the current one, no more
// often than MinRedraw, and only when it differs: an unchanged frame is
// not written again (no flicker, no bytes while nothing moves).
func (d *Display) redraw() {
	now := d.opts.Now()
	if !d.last.IsZero() && now.Sub(d.last) < MinRedraw && d.shown > 0 && !d.model.cancel {
		return
	}
	lines := Frame(d.model, d.opts.Size(), now, d.opts.Colour)
	if d.shown > 0 && slices.Equal(lines, d.frame) {
		d.dirty = false
		return
	}
	var b strings.Builder
	d.erase(&b)
	d.drawLines(&b, lines, now)
	io.WriteString(d.out, b.String())
}

// erase moves the cursor to the first line of the frame and clears the
// screen below it.
func (d *Display) erase(b *strings.Builder) {
	if d.shown == 0 {
		return
	}
	b.WriteString("\r")
	if d.shown > 1 {
		b.WriteString("\x1b[")
		b.WriteString(itoa(d.shown - 1))
		b.WriteString("A")
	}
	b.WriteString("\x1b[J")
	d.shown = 0
}

// draw writes the current frame, leaving the cursor at the end of its last
// line.
func (d *Display) draw(b *strings.Builder) {
	now := d.opts.Now()
	d.drawLines(b, Frame(d.model, d.opts.Size(), now, d.opts.Colour), now)
}

// drawLines writes lines, the frame of the time now.
func (d *Display) drawLines(b *strings.Builder, lines []string, now time.Time) {
	b.WriteString(strings.Join(lines, "\n"))
	d.shown, d.frame = len(lines), lines
	d.dirty = false
	d.last = now
	d.redraws++
}

// itoa formats a small non-negative int.
func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
