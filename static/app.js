// Small behaviours every page shares; each page works without them.
(function () {
  'use strict';

  // A table wider than the screen scrolls sideways inside its frame; the frame then takes keyboard focus so the arrow
  // keys can scroll it (WCAG 2.1.1), and is named for screen readers. Tables that fit stay out of the tab order.
  function markScrollingTables(root) {
    var frames = (root || document).querySelectorAll('.table-wrap');
    for (var i = 0; i < frames.length; i++) {
      var frame = frames[i];
      if (frame.scrollWidth > frame.clientWidth + 1) {
        frame.setAttribute('tabindex', '0');
        frame.setAttribute('role', 'region');
        // Named after the table's caption when it has one, so two scrolling tables on a page are told apart.
        var caption = frame.querySelector('caption');
        var named = caption && caption.textContent.trim() ? caption.textContent.trim() + ', table' : 'Table';
        if (!frame.hasAttribute('aria-label')) frame.setAttribute('aria-label', named + ', scrolls sideways');
      } else if (frame.getAttribute('tabindex') === '0') {
        frame.removeAttribute('tabindex');
        frame.removeAttribute('role');
      }
    }
  }

  // Collapsible sections that remember themselves (the compliance tree): each open or close the person makes is sent to
  // <data-headings of the container>/<the heading's id>. data-open holds the state the server rendered, so the toggle
  // event a section fires as it is first drawn open is not sent back.
  document.addEventListener('toggle', function (event) {
    var section = event.target;
    if (!section || !section.matches || !section.matches('details.tree-section[id^="section-"]') || !window.htmx) return;
    var container = section.closest('[data-headings]');
    if (!container) return;
    var open = section.open ? '1' : '';
    if (section.getAttribute('data-open') === open) return;
    section.setAttribute('data-open', open);
    window.htmx.ajax('POST', container.getAttribute('data-headings') + '/' + section.id.slice('section-'.length), {
      source: section, target: section, swap: 'none', values: { open: section.open ? 'true' : 'false' },
    });
  }, true);

  document.addEventListener('DOMContentLoaded', function () { markScrollingTables(document); });
  window.addEventListener('resize', function () { markScrollingTables(document); });
  document.addEventListener('htmx:afterSettle', function (event) { markScrollingTables(event.target); });
})();

// Times in History and the Audit Log (<time data-local>) are written in the reader's own time zone, naming it; the
// server renders them in UTC, which is what a page without scripts shows. Days too: a day drawn up now
// (<time data-local-day>) is the reader's day, and a date field defaulting to today (<input data-today>, the server's
// UTC day) takes today in the reader's zone while it still holds that default.
(function () {
  'use strict';
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function zoneName(date) {
    try {
      var part = new Intl.DateTimeFormat(undefined, { timeZoneName: 'short' }).formatToParts(date).filter(function (p) { return p.type === 'timeZoneName'; })[0];
      return part ? part.value : '';
    } catch (e) { return ''; }
  }
  function localise(root) {
    var times = (root || document).querySelectorAll('time[data-local]');
    for (var i = 0; i < times.length; i++) {
      var el = times[i];
      var date = new Date(el.getAttribute('datetime'));
      if (isNaN(date.getTime())) continue;
      el.textContent = date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + ' ' + pad(date.getHours()) + ':' + pad(date.getMinutes()) + ' ' + zoneName(date);
      el.setAttribute('title', el.getAttribute('datetime'));
    }
    var days = (root || document).querySelectorAll('time[data-local-day]');
    for (var j = 0; j < days.length; j++) {
      var at = new Date(days[j].getAttribute('datetime'));
      if (!isNaN(at.getTime())) days[j].textContent = localDay(at) + ' (' + zoneName(at) + ')';
    }
    var inputs = (root || document).querySelectorAll('input[type="date"][data-today]');
    for (var k = 0; k < inputs.length; k++) {
      var input = inputs[k];
      if (input.value === input.getAttribute('data-today')) input.value = localDay(new Date());
      input.setAttribute('data-today', input.value);
    }
  }
  function localDay(date) { return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()); }
  document.addEventListener('DOMContentLoaded', function () { localise(document); });
  document.addEventListener('htmx:afterSettle', function (event) { localise(event.target); });
})();

// An Export link marked data-reader-zone asks for the file's times in the reader's zone: the browser's zone goes with it
// as tz when it is followed. Without scripts the file is written in UTC, its headers saying so.
(function () {
  'use strict';
  document.addEventListener('click', function (event) {
    var link = event.target && event.target.closest ? event.target.closest('a[data-reader-zone]') : null;
    if (!link) return;
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone) return;
    var url = new URL(link.getAttribute('href'), window.location.href);
    url.searchParams.set('tz', zone);
    link.setAttribute('href', url.pathname + url.search);
  }, true);
})();
