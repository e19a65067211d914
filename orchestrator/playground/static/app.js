// The glimpse playground: one form that calls the API from this page,
// exactly as any client does, and shows what comes back.
'use strict';

(() => {
  const $ = (id) => document.getElementById(id);
  const blobs = [];
  let run = 0;

  // The outputs switched on.
  const outputs = () => ({
    card: $('out-card').checked,
    screenshot: $('out-screenshot').checked,
    pdf: $('out-pdf').checked,
    markdown: $('out-markdown').checked,
    json: $('out-json').checked,
  });

  // The main request: metadata, the screenshot and the Markdown in one
  // answer. A PDF is asked for apart, since printing emulates print media,
  // which would change the screenshot.
  const mainParams = (target, out) => {
    const p = [['url', target]];
    if (!out.card && !out.json) p.push(['meta', 'false']);
    if (out.screenshot) p.push(['screenshot', 'true']);
    if (out.markdown) p.push(['data.markdown.attr', 'markdown']);
    return p;
  };
  const pdfParams = (target) => [['url', target], ['meta', 'false'], ['pdf', 'true']];
  const query = (params) => new URLSearchParams(params).toString();

  const headers = (key) => {
    const h = { accept: 'application/json' };
    if (key) h['x-api-key'] = key;
    return h;
  };

  class APIError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
  }

  // call answers params with the API's JSON, or throws its error.
  const call = async (params, key) => {
    let res;
    try {
      res = await fetch('/?' + query(params), { headers: headers(key), cache: 'no-store' });
    } catch (e) {
      throw new APIError('ENETWORK', 'glimpse could not be reached: ' + e.message);
    }
    let body = null;
    try {
      body = await res.json();
    } catch (e) {
      body = null;
    }
    if (!res.ok || !body || body.status !== 'success') {
      if (body && body.code) throw new APIError(body.code, body.message || '');
      throw new APIError('E' + res.status, 'glimpse answered ' + res.status + ' without an error envelope.');
    }
    return { body, cache: res.headers.get('x-cache-status'), time: res.headers.get('x-response-time') };
  };

  // picture fetches one of the page's pictures through the API's `embed`
  // (a cache hit of the main request) and shows it as a blob, so the page
  // loads nothing from other origins.
  const picture = async (params, field, img, key) => {
    img.hidden = true;
    try {
      const res = await fetch('/?' + query([...params, ['embed', field]]), { headers: headers(key), cache: 'no-store' });
      if (!res.ok) return;
      const type = res.headers.get('content-type') || '';
      if (!type.startsWith('image/')) return;
      const url = URL.createObjectURL(await res.blob());
      blobs.push(url);
      img.src = url;
      img.hidden = false;
    } catch (e) {
      img.hidden = true;
    }
  };

  const shellQuote = (s) => "'" + s.replace(/'/g, "'\\''") + "'";

  const curl = (params, key) => {
    const parts = ['curl -s'];
    if (key) parts.push('-H "x-api-key: $GLIMPSE_API_KEY"');
    parts.push(shellQuote(location.origin + '/?' + query(params)));
    return parts.join(' ');
  };

  // mqlOptions is the options object @microlink/mql sends as these
  // parameters: dot notation nested back into objects.
  const mqlOptions = (params) => {
    const opts = {};
    for (const [name, value] of params) {
      if (name === 'url') continue;
      const path = name.split('.');
      let o = opts;
      for (const k of path.slice(0, -1)) {
        if (typeof o[k] !== 'object' || o[k] === null) o[k] = {};
        o = o[k];
      }
      o[path[path.length - 1]] = value === 'true' ? true : value === 'false' ? false : value;
    }
    return opts;
  };

  const mql = (params, key) => {
    const target = params.find(([n]) => n === 'url')[1];
    const opts = { endpoint: location.origin + '/', ...mqlOptions(params) };
    let text = JSON.stringify(opts, null, 2);
    if (key) text = text.replace(/^\{/, '{\n  "apiKey": process.env.GLIMPSE_API_KEY,');
    return "import mql from '@microlink/mql'\n\nconst { data } = await mql(" + JSON.stringify(target) + ', ' + text + ')';
  };

  const show = (id, on) => {
    $(id).hidden = !on;
  };

  const setStatus = (text) => {
    $('status').textContent = text;
  };

  const showError = (err) => {
    $('error-code').textContent = err.code || 'ERROR';
    $('error-message').textContent = err.message;
    show('error', true);
  };

  const formatDate = (iso) => {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '';
    return d.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
  };

  const hostOf = (u) => {
    try {
      return new URL(u).host;
    } catch (e) {
      return '';
    }
  };

  const renderCard = (data, target, params, key) => {
    const link = data.url || target;
    $('card').href = link;
    $('card-title').textContent = data.title || hostOf(link) || link;
    $('card-description').textContent = data.description || '';
    $('card-publisher').textContent = data.publisher || hostOf(link);
    $('card-date').textContent = data.date ? formatDate(data.date) : '';
    $('card-url').textContent = link;
    $('card-image').hidden = true;
    $('card-logo').hidden = true;
    if (data.image && data.image.url) picture(params, 'image.url', $('card-image'), key);
    if (data.logo && data.logo.url) picture(params, 'logo.url', $('card-logo'), key);
    show('card-section', true);
  };

  const reset = () => {
    for (const u of blobs.splice(0)) URL.revokeObjectURL(u);
    for (const id of ['error', 'card-section', 'screenshot-section', 'pdf-section', 'markdown-section', 'json-section', 'calls-section']) show(id, false);
    $('pdf').removeAttribute('src');
  };

  const submit = async (ev) => {
    ev.preventDefault();
    const mine = ++run;
    const target = $('url').value.trim();
    const key = $('key').value.trim();
    const out = outputs();
    reset();
    const wantsMain = out.card || out.json || out.screenshot || out.markdown;
    if (!wantsMain && !out.pdf) {
      setStatus('Switch on at least one output.');
      return;
    }
    const main = mainParams(target, out);
    const calls = [];
    const curls = [];
    const mqls = [];
    if (wantsMain) {
      curls.push(curl(main, key));
      mqls.push(mql(main, key));
    }
    if (out.pdf) {
      curls.push(curl(pdfParams(target), key));
      mqls.push(mql(pdfParams(target), key));
    }
    $('curl').textContent = curls.join('\n\n');
    $('mql').textContent = mqls.join('\n\n');
    show('calls-section', true);

    $('go').disabled = true;
    setStatus('Fetching ' + (target || 'nothing') + '…');
    const started = performance.now();
    const failures = [];
    if (wantsMain) {
      calls.push(call(main, key).then((r) => {
        if (mine !== run) return;
        const data = r.body.data || {};
        if (out.card) renderCard(data, target, main, key);
        if (out.screenshot && data.screenshot) {
          $('screenshot').src = data.screenshot.url;
          $('screenshot-link').href = data.screenshot.url;
          show('screenshot-section', true);
        }
        if (out.markdown) {
          const md = typeof data.markdown === 'string' ? data.markdown : '';
          // With metadata on, the Markdown starts with a YAML frontmatter
          // block; it is shown folded, the text first.
          const fm = /^---\n[\s\S]*?\n---\n/.exec(md);
          $('frontmatter').textContent = fm ? fm[0] : '';
          show('frontmatter-box', Boolean(fm));
          $('markdown').textContent = (fm ? md.slice(fm[0].length) : md).trim() || '(no Markdown: the page has no main content)';
          show('markdown-section', true);
        }
        if (out.json) {
          $('json').textContent = JSON.stringify(r.body, null, 2);
          show('json-section', true);
        }
        return r;
      }, (e) => { failures.push(e); }));
    }
    if (out.pdf) {
      calls.push(call(pdfParams(target), key).then((r) => {
        if (mine !== run) return;
        const pdf = r.body.data && r.body.data.pdf;
        if (pdf) {
          $('pdf').src = pdf.url;
          $('pdf-link').href = pdf.url;
          $('pdf-size').textContent = pdf.size_pretty ? '(' + pdf.size_pretty + ')' : '';
          show('pdf-section', true);
        }
        return r;
      }, (e) => { failures.push(e); }));
    }
    const results = await Promise.all(calls);
    if (mine !== run) return;
    $('go').disabled = false;
    if (failures.length > 0) {
      showError(failures[0]);
      setStatus('The request failed.');
      return;
    }
    const first = results.find(Boolean);
    const cache = first && first.cache ? ', cache ' + first.cache : '';
    setStatus('Done in ' + Math.round(performance.now() - started) + ' ms' + cache + '.');
  };

  document.addEventListener('DOMContentLoaded', () => {
    $('form').addEventListener('submit', submit);
    const given = new URLSearchParams(location.search).get('target');
    if (given) $('url').value = given;
    $('url').focus();
  });
})();
