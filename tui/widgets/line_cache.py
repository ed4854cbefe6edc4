"""Widgets that hand Textual the same lines frame after frame, drawing only what changed.

Textual's compositor asks every widget on screen for all of its lines on every frame, even one
that moves a cursor over two of them: each line goes through the styles pass (border, padding,
tint: a new Strip) and the app's line filters again, and `rich_style` and `size`, which a
widget reads for every line it draws, are recomputed on each access (an ancestors' CSS walk, a
compositor lookup). A widget with this mixin keeps the lines it handed over last time and draws
again only those refreshed since, so a frame costs what changed on it.
"""

from __future__ import annotations

import contextlib
from typing import Callable

from rich.segment import Segment
from rich.style import Style
from textual.geometry import Region, Size
from textual.filter import ANSIToTruecolor, LineFilter
from textual.strip import Strip
from textual.widget import Widget

LINES_PASSED = 1024  # lines remembered as they came through the filters (then forgotten all at once)


class LineCache:
    """Mix in before the Widget (or Screen) class.

    - `render_lines`, what the compositor calls, returns the lines of the last frame with those
      refreshed since drawn again (`refresh(region)` marks lines; `refresh()`, a restyle or a
      new size, all of them);
    - a Line-API widget (one that defines `render_line` and pads its lines with `base_style`)
      without border or padding has its lines drawn by `render_line` alone; any other widget's
      go through Textual's styles pass, as without the mixin;
    - `base_style` and `view_size`: `rich_style` and `size`, read again only after a restyle
      (`base_style`) or a resize (`view_size`);
    - `strip_cache`: rows a widget keeps by its own keys (they hold `base_style`), emptied on a
      restyle; `drawn_strip` puts a row in the styles the screen draws before it is kept;
    - `encode_ahead(strips)`: lines drawn ahead of their key, encoded then too;
    - a line handed over again (the same Strip object) skips the fitting and filters: what they
      made of it the last time is remembered;
    - `refresh_view_lines(lines)`: repaint lines of the view, one region per run;
    - `after_frame(work)`: `work` runs right after the next frame that draws this widget;
    - `restyled()`: a widget that keeps drawn lines of its own (not in `strip_cache`) drops them
      here; called before a frame when the style its lines were drawn on changed (a new theme).
    """

    _frame: list[Strip] | None = None  # the lines handed over last frame
    _frame_for: tuple | None = None  # (crop, line filters) the frame was drawn for
    _stale_lines: set[int] | None = None  # lines of the frame refreshed since it was drawn
    _direct: bool | None = None  # no border or padding: draw lines with render_line alone
    _base_style: Style | None = None
    _view_size: Size | None = None
    _view_for: Size | None = None  # the outer size `_view_size` (and `_content_top`) was read at
    _content_top = 0  # lines above the content (border, padding): refreshed regions are below them
    _strip_cache: dict | None = None
    _truecolor: _Drawn | bool | None = None  # for drawn_style; False: the app has no truecolor filter
    _drawn_on: Style | None = None  # the base style of the lines drawn so far
    _passed: dict | None = None  # id(line) -> (line, what fitting and the filters made of it), see _passing
    _filter_background = None  # the background the filters draw on (read again with a new frame or style)
    _after_frame: Callable[[], object] | None = None  # work for once the next frame drawing this widget is out

    @property
    def base_style(self) -> Style:
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    @property
    def view_size(self) -> Size:
        """`self.size` (the content area), read again only when the outer size changed. The outer
        size is set by the layout pass itself, before any line is drawn at the new size."""
        self._read_size()
        return self._view_size

    def _read_size(self) -> None:
        if self._view_for != self._size:
            self._view_for, self._view_size, self._content_top = self._size, self.size, self.content_offset.y

    def drawn_style(self, style: Style) -> Style:
        """`style` as the app's truecolor filter draws it on this widget: lines built in these
        styles pass the filter as they are (no second copy of each line every frame)."""
        if self._truecolor is None:
            self._truecolor = next((_Drawn.of(f, self.background_colors[1]) for f in self.app.get_line_filters()
                                    if type(f) is ANSIToTruecolor), False)
        return self._truecolor(style) if self._truecolor else style

    def drawn_strip(self, strip: Strip) -> Strip:
        """`strip` in the styles the screen draws: a kept line of these passes the filter as it is
        and keeps its encoding, so showing it again costs next to nothing."""
        return _restyled(strip, self.drawn_style)

    def encode_ahead(self, strips) -> None:
        """Encode lines drawn ahead of the key that shows them (Strip keeps its terminal
        sequences): that key's frame then only places them."""
        console = self.app.console
        ready = self._frame_for is not None and self._direct  # a frame was drawn: its width and filters are known
        for strip in strips:
            (self._passing(strip) if ready else strip).render(console)

    @property
    def strip_cache(self) -> dict:
        if self._strip_cache is None:
            self._strip_cache = {}
        return self._strip_cache

    def refresh_view_lines(self, lines) -> None:
        """Repaint these lines of the view (view lines, not virtual ones), one region per run."""
        width, runs = self.view_size.width, []
        for y in sorted(lines):
            if runs and y == runs[-1][0] + runs[-1][1]:
                runs[-1][1] += 1
            else:
                runs.append([y, 1])
        if runs:
            self.refresh(*(Region(0, y, width, height) for y, height in runs))

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False):
        if repaint and self._frame is not None:
            if regions:
                self._read_size()
                top = self._content_top  # regions are in content coordinates, lines are not
                stale = self._stale_lines
                for region in regions:
                    stale.update(range(region.y + top, region.bottom + top))
            else:
                self._frame = None
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    def notify_style_update(self) -> None:
        self._base_style = self._strip_cache = self._frame = self._direct = self._truecolor = self._view_for = None
        self._passed = self._filter_background = None
        super().notify_style_update()

    def _passing(self, line: Strip) -> Strip:
        """`line` fitted to the frame's width and through the app's filters. A line the widget
        keeps comes back on later frames (a jump back, a cursor leaving a row, a line drawn
        ahead): what was made of it is remembered, not worked out again."""
        passed = self._passed
        if passed is None or len(passed) > LINES_PASSED:
            passed = self._passed = {}
        found = passed.get(id(line))
        if found is not None and found[0] is line:
            return found[1]
        (crop, filters) = self._frame_for
        strip = line.adjust_cell_length(crop.column_span[1], self.base_style)
        if filters:
            background = self._filter_background
            if background is None:  # background_colors walks the ancestors: read once per frame's filters
                background = self._filter_background = self.background_colors[1]
            for line_filter in filters:
                strip = filtered(strip, line_filter, background)
        passed[id(line)] = (line, strip)  # holding the line keeps its id from being reused
        return strip

    def restyled(self) -> None:
        """The base style changed since lines were drawn: drop lines kept outside `strip_cache`."""

    def after_frame(self, work: Callable[[], object]) -> None:
        """Run `work` once the next frame that draws this widget is out (a held key's next
        picture): it does not hold that frame back, nor wait for a timer after it."""
        with contextlib.suppress(AttributeError):  # (a bound method takes no attributes)
            work._param_count = 0  # what Textual's invoke would work out with inspect.signature, for each new lambda
        self._after_frame = work

    def render_lines(self, crop: Region) -> list[Strip]:
        if self._after_frame is not None:  # this frame is being composed: Textual runs these once it is out
            self.screen._invoke_later(self._after_frame, self)
            self._after_frame = None
        if self._frame is None and self._drawn_on != (base := self.base_style):  # a restyle drops the frame first
            if self._drawn_on is not None:
                self.restyled()
            self._drawn_on = base
        drawn_for = (crop, tuple(self.app.get_line_filters()))
        frame = self._frame
        if frame is None or self._frame_for != drawn_for:
            if self._frame_for != drawn_for:
                self._passed = self._filter_background = None
            self._frame_for, self._stale_lines = drawn_for, set()
            frame = self._frame = [Strip([])] * crop.height
            lines = list(crop.line_range)
        elif self._stale_lines:
            lines = sorted(y for y in self._stale_lines if crop.y <= y < crop.bottom)
            self._stale_lines.clear()
            if not lines:
                return frame
        else:
            return frame
        if self._direct is None:
            self._direct = type(self).render_line is not Widget.render_line and not any(self.styles.gutter)
        if self._direct:
            x1, x2 = crop.column_span
            passing = self._passing
            for y in lines:
                strip = passing(self.render_line(y))
                frame[y - crop.y] = strip.crop(x1, x2) if x1 else strip
        else:
            first = lines[0]
            drawn = super().render_lines(Region(crop.x, first, crop.width, lines[-1] + 1 - first))
            for y in lines:
                frame[y - crop.y] = drawn[y - first]
        return frame


class _Drawn:
    """What the truecolor filter makes of each style on one background, worked out once per style."""

    _known: dict = {}  # (filter, background) -> _Drawn

    def __init__(self, line_filter: ANSIToTruecolor, background):
        self._filter, self._background, self.styles = line_filter, background.rich_color, {}

    @classmethod
    def of(cls, line_filter: ANSIToTruecolor, background) -> _Drawn:
        found = cls._known.get((line_filter, background))
        if found is None:
            found = cls._known[line_filter, background] = cls(line_filter, background)
        return found

    def __call__(self, style: Style) -> Style:
        to = self.styles.get(style)
        if to is None:
            to = self._filter.truecolor_style(style, self._background)
            to = self.styles[style] = _SAME if to is style else to
        return style if to is _SAME else to


# What _Drawn keeps for a style the filter leaves as it is. Styles are looked up by value, so the
# style kept would be the first of its value seen, not the (equal) one asked about: lines drawn
# in a style made again (a new painter after a resize) would look changed, and be copied.
_SAME = object()


def filtered(strip: Strip, line_filter: LineFilter, background) -> Strip:
    """`strip.apply_filter`, without a copy of every segment when the filter changes none.

    The app's ANSI-to-truecolor filter rebuilds each segment of each new line, every frame;
    lines drawn in truecolor without `dim` come out of it the same, and most lines here are.
    The others are converted here, each style once per background (Textual's own pass looks
    each segment's style up in a cache keyed by style and colour, and copies the strip twice).
    """
    if type(line_filter) is not ANSIToTruecolor:
        return strip.apply_filter(line_filter, background)
    drawn = _Drawn.of(line_filter, background)
    known = drawn.styles  # looked up inline: this runs for every segment of every new line
    for segment in strip:
        style = segment.style
        if style is not None:
            to = known.get(style)
            if to is None:
                drawn(style)
                to = known[style]
            if to is not _SAME:
                break
    else:
        return strip
    return _restyled(strip, drawn)


def _restyled(strip: Strip, to) -> Strip:
    """`strip` with each segment's style mapped through `to` (a line is tens of segments, and
    tuple.__new__ builds each Segment without its Python-level __new__)."""
    make = tuple.__new__
    return Strip([make(Segment, (text, to(style) if style is not None else None, control))
                  for text, style, control in strip], strip.cell_length)
