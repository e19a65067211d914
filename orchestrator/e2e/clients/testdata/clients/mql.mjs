// Drives the real @microlink/mql client against a running glimpse, the way
// a Microlink user calls it, and prints one JSON line per case:
// {"name": ..., "ok": true|false, "detail": ...}, then {"done": <count>}.
//
//   node mql.mjs <clients dir>
//
// GLIMPSE_ENDPOINT is glimpse's API address (ending in /), GLIMPSE_PAGES the
// test's page server (no trailing /). The page server answers
// /hits?path=<route> with how often that route was requested. Only mql and
// Node's own modules are used.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const clientsDir = process.argv[2]
const endpoint = process.env.GLIMPSE_ENDPOINT
const pages = process.env.GLIMPSE_PAGES
if (!clientsDir || !endpoint || !pages) {
  console.error('usage: GLIMPSE_ENDPOINT=... GLIMPSE_PAGES=... node mql.mjs <clients dir>')
  process.exit(2)
}

// mql is resolved the way Node would resolve `import '@microlink/mql'` from
// the clients directory: its package.json's import condition.
const mqlDir = join(clientsDir, 'node_modules', '@microlink', 'mql')
const mqlPkg = JSON.parse(await readFile(join(mqlDir, 'package.json'), 'utf8'))
const mqlModule = await import(pathToFileURL(join(mqlDir, mqlPkg.exports.import)).href)
const mql = mqlModule.default
const { MicrolinkError } = mqlModule

// The status codes mql retries (its RETRY_STATUS_CODES).
const RETRIED = [408, 413, 500, 502, 503, 504, 521, 522, 524]

const cases = []
const test = (name, fn) => cases.push({ name, fn })

class Failure extends Error {}
const check = (cond, msg) => {
  if (!cond) throw new Failure(msg)
}
const show = v => JSON.stringify(v)
const eq = (got, want, what) =>
  check(show(got) === show(want), `${what} is ${show(got)}, want ${show(want)}`)

// call asks glimpse through mql and counts the attempts ky makes.
const call = async (url, opts = {}, fetchOpts = {}) => {
  const tries = { retries: 0 }
  const hooks = { beforeRetry: [() => { tries.retries++ }] }
  try {
    const res = await mql(url, { endpoint, ...opts }, { hooks, ...fetchOpts })
    res.attempts = tries.retries + 1
    return res
  } catch (err) {
    if (err instanceof MicrolinkError) err.attempts = tries.retries + 1
    throw err
  }
}

// failure expects mql to throw a MicrolinkError and returns it.
const failure = async promise => {
  let res
  try {
    res = await promise
  } catch (err) {
    if (err instanceof MicrolinkError) return err
    throw err
  }
  throw new Failure(`mql answered ${res.status} (${show(res.data)}); want a MicrolinkError`)
}

// apiError checks what every error glimpse sends carries through mql.
const apiError = (err, code, status, statusCode) => {
  eq(err.code, code, 'error.code')
  eq(err.status, status, 'error.status')
  eq(err.statusCode, statusCode, 'error.statusCode')
  check(err.name === 'MicrolinkError', `error.name is ${err.name}`)
  check(typeof err.description === 'string' && err.description.length > 10,
    `error.description ${show(err.description)} does not tell the caller what to change`)
  eq(err.message, `${code}, ${err.description}`, 'error.message')
  check(/^[a-z0-9-]+:[0-9a-f-]{36}$/.test(err.headers?.['x-request-id'] ?? ''),
    `x-request-id ${show(err.headers?.['x-request-id'])} is not region:uuid`)
  check(typeof err.more === 'string' && err.more.startsWith('http'), `error.more ${show(err.more)} is not a link`)
}

const hits = async route => {
  const res = await fetch(`${pages}/hits?path=${encodeURIComponent(route)}`)
  return Number(await res.text())
}

const fetchBytes = async url => {
  const res = await fetch(url)
  check(res.ok, `${url} answered ${res.status}`)
  return { type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) }
}

const PNG_MAGIC = '89504e470d0a1a0a'
const pngSize = body => {
  check(body.subarray(0, 8).toString('hex') === PNG_MAGIC, 'the file is not a PNG')
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) }
}

// shot checks data.screenshot and returns the stored PNG's pixel size.
const shot = async data => {
  const s = data?.screenshot
  check(s && typeof s.url === 'string', `data.screenshot is ${show(s)}`)
  eq(s.type, 'png', 'data.screenshot.type')
  const { type, body } = await fetchBytes(s.url)
  eq(type, 'image/png', 'the stored screenshot content-type')
  const size = pngSize(body)
  eq([s.width, s.height], [size.width, size.height], 'data.screenshot width and height')
  eq(s.size, body.length, 'data.screenshot.size')
  return { ...size, body }
}

const article = `${pages}/article`

// --------------------------------------------------------------------------
// Metadata

test('metadata of a page', async () => {
  const res = await call(article)
  eq(res.status, 'success', 'status')
  const d = res.data
  eq(d.title, 'The Article Title', 'data.title')
  eq(d.description, 'What the article says, in one sentence.', 'data.description')
  eq(d.lang, 'en', 'data.lang')
  eq(d.author, 'Ada Lovelace', 'data.author')
  eq(d.publisher, 'The Test Gazette', 'data.publisher')
  eq(d.date, '2026-01-02T03:04:05.000Z', 'data.date')
  eq(d.url, article, 'data.url')
  check(d.image && d.image.url === `${pages}/img.png`, `data.image is ${show(d.image)}`)
  eq([d.image.type, d.image.width, d.image.height], ['png', 120, 63], 'data.image type, width, height')
  check(d.image.size > 0 && typeof d.image.size_pretty === 'string', `data.image size ${show(d.image)}`)
  check(d.logo && d.logo.url === `${pages}/logo.png`, `data.logo is ${show(d.logo)}`)
  eq([d.logo.type, d.logo.width, d.logo.height], ['png', 32, 32], 'data.logo type, width, height')
  eq(res.response.statusCode, 200, 'response.statusCode')
  eq(res.response.headers.get('content-type').toLowerCase(), 'application/json; charset=utf-8', 'content-type')
})

test('the payload carries the target response status and headers', async () => {
  const res = await call(article)
  eq(res.statusCode, 200, 'statusCode')
  eq(res.headers?.['x-page'], 'article', "headers['x-page']")
  check(res.headers['content-type']?.startsWith('text/html'), `headers['content-type'] is ${res.headers['content-type']}`)
  eq(res.redirects, [], 'redirects')
})

test('a page that answers 404 is a success that says 404', async () => {
  const res = await call(`${pages}/missing`)
  eq(res.status, 'success', 'status')
  eq(res.statusCode, 404, 'statusCode')
  eq(res.data.title, 'Not here', 'data.title')
  eq(res.response.statusCode, 200, 'response.statusCode')
})

test('a redirecting page lists its hops and ends at the final url', async () => {
  const res = await call(`${pages}/hop1`)
  eq(res.status, 'success', 'status')
  eq(res.redirects, [{ url: `${pages}/hop1`, statusCode: 302 }, { url: `${pages}/hop2`, statusCode: 301 }], 'redirects')
  eq(res.statusCode, 200, 'statusCode')
  eq(res.data.url, article, 'data.url')
  eq(res.data.title, 'The Article Title', 'data.title')
})

test('a target that answers 500 is a success that says 500, fetched once', async () => {
  const res = await call(`${pages}/boom`, { force: true })
  eq(res.status, 'success', 'status')
  eq(res.statusCode, 500, 'statusCode')
  eq(res.data.title, 'Server trouble', 'data.title')
  eq(res.attempts, 1, 'mql attempts')
  const n = await hits('/boom')
  check(n >= 1 && n <= 2, `the page was requested ${n} times for one call`)
  return `mql attempts 1, page requests ${n}`
})

test('x-timestamp, x-fetch-time and the cache headers', async () => {
  const before = Date.now()
  const res = await call(`${pages}/stamp`)
  const after = Date.now()
  const h = res.response.headers
  const ts = Number(h.get('x-timestamp'))
  check(Number.isInteger(ts) && ts >= before - 1000 && ts <= after + 1000,
    `x-timestamp ${h.get('x-timestamp')} is not the Unix milliseconds of this answer (${before}..${after})`)
  check(/^\d+(\.\d+)?(ms|s)$/.test(h.get('x-fetch-time') ?? ''), `x-fetch-time ${show(h.get('x-fetch-time'))}`)
  check(/^\d+(\.\d+)?(ms|s)$/.test(h.get('x-response-time') ?? ''), `x-response-time ${show(h.get('x-response-time'))}`)
  eq(h.get('x-cache-ttl'), '86400000', 'x-cache-ttl')
  eq(h.get('x-cache-status'), 'MISS', 'x-cache-status of the first call')
  eq(h.get('x-pricing-plan'), 'test', 'x-pricing-plan')
  const again = await call(`${pages}/stamp`)
  eq(again.response.headers.get('x-cache-status'), 'HIT', 'x-cache-status of the second call')
  eq(again.response.headers.get('x-timestamp'), h.get('x-timestamp'), 'x-timestamp of the cached answer')
  const ttl = await call(`${pages}/stamp`, { ttl: '1h', force: true })
  eq(ttl.response.headers.get('x-cache-ttl'), '3600000', 'x-cache-ttl with ttl: 1h')
  eq(ttl.response.headers.get('x-cache-status'), 'BYPASS', 'x-cache-status with force')
})

test('meta: false skips metadata', async () => {
  const res = await call(article, { meta: false })
  eq(res.status, 'success', 'status')
  eq(Object.keys(res.data).filter(k => k !== 'url'), [], 'data fields besides url')
  eq(res.response.headers.get('x-fetch-mode'), 'skipped', 'x-fetch-mode')
})

test('meta: { title: true, lang: true } keeps only those fields', async () => {
  const res = await call(article, { meta: { title: true, lang: true } })
  eq(Object.keys(res.data).sort(), ['lang', 'title'], 'data fields')
  eq(res.data.title, 'The Article Title', 'data.title')
})

test('meta: { image: false, logo: false } drops those fields', async () => {
  const res = await call(article, { meta: { image: false, logo: false } })
  check(!('image' in res.data) && !('logo' in res.data), `data still has image or logo: ${show(Object.keys(res.data))}`)
  eq(res.data.title, 'The Article Title', 'data.title')
})

// --------------------------------------------------------------------------
// PDF, screenshots, embed

test('pdf: true stores a PDF at data.pdf.url', async () => {
  const res = await call(article, { pdf: true, meta: false })
  const p = res.data.pdf
  check(p && typeof p.url === 'string', `data.pdf is ${show(p)}`)
  eq(p.type, 'pdf', 'data.pdf.type')
  const { type, body } = await fetchBytes(p.url)
  eq(type, 'application/pdf', 'the stored PDF content-type')
  eq(body.subarray(0, 5).toString(), '%PDF-', 'the stored file starts')
  check(body.subarray(-1024).toString().includes('%%EOF'), 'the stored PDF has no %%EOF trailer')
  eq(p.size, body.length, 'data.pdf.size')
  check(typeof p.size_pretty === 'string', `data.pdf.size_pretty ${show(p.size_pretty)}`)
})

test('pdf options: format and landscape', async () => {
  const res = await call(article, { pdf: { format: 'Letter', landscape: true }, meta: false })
  const { body } = await fetchBytes(res.data.pdf.url)
  // Letter landscape is 792 x 612 points.
  check(/\/MediaBox\s*\[\s*0 0 792(\.\d+)? 612(\.\d+)?\s*\]/.test(body.toString('latin1')),
    'the PDF has no Letter-landscape MediaBox [0 0 792 612]')
})

test('screenshot: true on the default device is 1280x800', async () => {
  const res = await call(`${pages}/viewport`, { screenshot: true })
  const s = await shot(res.data)
  eq([s.width, s.height], [1280, 800], 'the screenshot size')
  eq(res.data.title, '1280x800@1', 'the viewport the page saw')
})

test("screenshot with device: 'iPhone X'", async () => {
  const res = await call(`${pages}/viewport`, { screenshot: true, device: 'iPhone X' })
  const s = await shot(res.data)
  eq([s.width, s.height], [1125, 2436], 'the screenshot size')
  eq(res.data.title, '375x812@3', 'the viewport the page saw')
})

// Microlink's own preset names, as its docs spell them; the page reports
// the viewport it was given.
for (const [device, seen] of [
  ['iPhone 11', '414x828@2'],
  ['iPad', '768x1024@2'],
  ['Galaxy S9', '320x658@4.5'],
  ['Macbook Pro 13', '1280x800@2'],
  ['macbook pro 13', '1280x800@2']
]) {
  test(`device: '${device}'`, async () => {
    const res = await call(`${pages}/viewport`, { device, meta: { title: true } })
    eq(res.status, 'success', 'status')
    eq(res.data.title, seen, 'the viewport the page saw')
  })
}

test("embed: 'screenshot.url' through mql.buffer answers the PNG itself", async () => {
  const res = await mql.buffer(`${pages}/viewport`, { endpoint, screenshot: true, embed: 'screenshot.url', meta: false })
  eq(res.statusCode, 200, 'statusCode')
  eq(res.headers.get('content-type'), 'image/png', 'content-type')
  const body = Buffer.from(res.body)
  eq(pngSize(body), { width: 1280, height: 800 }, 'the PNG size')
  check(res.headers.get('x-request-id'), 'the embedded answer has no x-request-id')
})

test("embed: 'pdf.url' through mql.stream answers the PDF itself", async () => {
  const [apiUrl] = mql.getApiUrl(article, { endpoint, pdf: true, embed: 'pdf.url', meta: false })
  const stream = await mql.stream(apiUrl)
  const chunks = []
  for await (const chunk of stream) chunks.push(Buffer.from(chunk))
  const body = Buffer.concat(chunks)
  eq(body.subarray(0, 5).toString(), '%PDF-', 'the streamed body starts')
})

test('headers are forwarded to the target', async () => {
  const res = await call(`${pages}/echo`, { headers: { 'x-echo-test': 'open sesame' } })
  eq(res.data.title, 'echo: open sesame', 'data.title')
})

test('apiKey sends x-api-key and the key plan answers', async () => {
  const res = await call(article, { apiKey: 'k-good', meta: false })
  eq(res.status, 'success', 'status')
  eq(res.response.headers.get('x-pricing-plan'), 'pro', 'x-pricing-plan')
})

// --------------------------------------------------------------------------
// Errors, as mql surfaces them

test('EINVALURL: a url with credentials in it', async () => {
  const err = await failure(call(`http://user:secret@127.0.0.1:9/`))
  apiError(err, 'EINVALURL', 'fail', 400)
  eq(err.attempts, 1, 'mql attempts')
  check(!err.description.includes('secret'), 'the message repeats the password')
})

test('EINVALURLCLIENT: mql refuses a url without http(s) before calling', async () => {
  const err = await failure(call('ftp://example.com/file'))
  eq([err.code, err.status, err.statusCode], ['EINVALURLCLIENT', 'fail', undefined], 'code, status, statusCode')
})

test('EFORBIDDENURL: the cloud metadata address', async () => {
  const err = await failure(call('http://169.254.169.254/latest/meta-data/'))
  apiError(err, 'EFORBIDDENURL', 'fail', 400)
  eq(err.attempts, 1, 'mql attempts')
})

test('EFORBIDDENURL: a private address in numeric spelling', async () => {
  const err = await failure(call('http://167772161/'))
  apiError(err, 'EFORBIDDENURL', 'fail', 400)
})

test('EINVALQUERY: a pdf.format glimpse does not know', async () => {
  const err = await failure(call(article, { pdf: { format: 'B9' } }))
  apiError(err, 'EINVALQUERY', 'fail', 400)
  check(err.description.includes('pdf.format'), `the message does not name pdf.format: ${err.description}`)
  eq(err.attempts, 1, 'mql attempts')
})

test('EINVALQUERY: a ttl under a minute', async () => {
  const err = await failure(call(article, { ttl: '10s' }))
  apiError(err, 'EINVALQUERY', 'fail', 400)
  check(err.description.includes('ttl'), `the message does not name ttl: ${err.description}`)
})

test('EPAGERANGE: pdf.pageRanges past the document', async () => {
  const err = await failure(call(article, { pdf: { pageRanges: '40-50' }, meta: false }))
  apiError(err, 'EPAGERANGE', 'fail', 400)
})

test('EMAXREDIRECTS: a page that redirects to itself', async () => {
  const err = await failure(call(`${pages}/loop`))
  apiError(err, 'EMAXREDIRECTS', 'fail', 400)
  eq(err.attempts, 1, 'mql attempts')
})

test('EAUTH: an api key glimpse does not know', async () => {
  const err = await failure(call(article, { apiKey: 'k-nobody', meta: false }))
  apiError(err, 'EAUTH', 'fail', 401)
  check(!err.description.includes('k-nobody'), 'the message repeats the key')
  eq(err.attempts, 1, 'mql attempts')
})

test('ERATE: the plan quota used up, not retried by mql', async () => {
  const first = await call(article, { apiKey: 'k-tiny', meta: false })
  eq(first.response.headers.get('x-rate-limit-remaining'), '0', 'x-rate-limit-remaining after the one call allowed')
  const err = await failure(call(article, { apiKey: 'k-tiny', meta: false }))
  apiError(err, 'ERATE', 'fail', 429)
  check(Number(err.headers['retry-after']) > 0, `retry-after ${show(err.headers['retry-after'])}`)
  eq(err.headers['x-rate-limit-limit'], '1', 'x-rate-limit-limit')
  eq(err.attempts, 1, 'mql attempts')
})

test('ETIMEOUT: a page slower than timeout, retried by mql', async () => {
  const err = await failure(call(`${pages}/slow`, { timeout: 1500, meta: { title: true } }))
  apiError(err, 'ETIMEOUT', 'error', 504)
  const n = await hits('/slow')
  // ky retries a 504 twice by default; each attempt renders again.
  eq(err.attempts, 3, 'mql attempts')
  check(n >= 3, `the slow page was requested ${n} times over 3 attempts`)
  return `mql attempts ${err.attempts}, slow-page requests ${n}`
})

test('ETIMEOUT with retry: 0 is one attempt', async () => {
  const err = await failure(call(`${pages}/slow-once`, { timeout: 1500, meta: { title: true } }, { retry: 0 }))
  apiError(err, 'ETIMEOUT', 'error', 504)
  eq(err.attempts, 1, 'mql attempts')
  const n = await hits('/slow-once')
  check(n >= 1 && n <= 2, `the slow page was requested ${n} times for one attempt`)
  return `mql attempts 1, slow-page requests ${n}`
})

test('ENOTFOUND: an endpoint path that is not the API', async () => {
  const err = await failure(mql(article, { endpoint: endpoint + 'v1/' }))
  apiError(err, 'ENOTFOUND', 'fail', 404)
})

// --------------------------------------------------------------------------
// Screenshot overlays and options accepted but not applied

const overlay = async browser => {
  const res = await call(`${pages}/viewport`, { screenshot: { overlay: { browser, background: '#c1c1c1' } }, force: true })
  eq(res.status, 'success', 'status')
  eq(res.response.headers.get('x-glimpse-ignored'), null, 'x-glimpse-ignored')
  const s = await shot(res.data)
  check(s.width > 1280 && s.height > 800, `the framed screenshot is ${s.width}x${s.height}, no larger than the 1280x800 viewport`)
  return s
}

test('screenshot.overlay: a light browser frame on a background', async () => {
  await overlay('light')
})

test('screenshot.overlay: light and dark frames differ', async () => {
  const [light, dark] = [await overlay('light'), await overlay('dark')]
  check(!light.body.equals(dark.body), 'the light and dark frames are the same image')
})

for (const [param, value] of [['codeScheme', 'dracula'], ['animated', true]]) {
  test(`screenshot.${param} is accepted and named in x-glimpse-ignored`, async () => {
    const res = await call(`${pages}/viewport`, { screenshot: { [param]: value } })
    eq(res.status, 'success', 'status')
    await shot(res.data)
    const ignored = res.response.headers.get('x-glimpse-ignored') ?? ''
    check(ignored.split(/,\s*/).includes(`screenshot.${param}`), `x-glimpse-ignored is ${show(ignored)}`)
  })
}

test("Microlink's options glimpse lacks are accepted and named in x-glimpse-ignored", async () => {
  const res = await call(`${pages}/stamp`, {
    insights: { lighthouse: true },
    meta: { logo: { square: true } },
    waitUntil: ['domcontentloaded', 'load']
  })
  eq(res.status, 'success', 'status')
  eq(res.data.title, 'Stamped', 'data.title')
  const ignored = (res.response.headers.get('x-glimpse-ignored') ?? '').split(/,\s*/).sort()
  eq(ignored.join(', '), 'insights.lighthouse, meta.logo.square', 'x-glimpse-ignored')
})

// --------------------------------------------------------------------------
// The rest of the vocabulary: video, audio, iframe, palette, insights

const hex = /^#[0-9a-f]{6}$/

test('video and audio: the page\'s own files as asset objects', async () => {
  const res = await call(`${pages}/rules`, { video: true, audio: true, meta: false })
  eq(res.status, 'success', 'status')
  eq([res.data.video?.url, res.data.video?.type], [`${pages}/clip.mp4`, 'mp4'], 'data.video url, type')
  eq([res.data.audio?.url, res.data.audio?.type], [`${pages}/sound.mp3`, 'mp3'], 'data.audio url, type')
  check(res.data.video.size > 0 && res.data.audio.size > 0, `sizes ${show([res.data.video.size, res.data.audio.size])}`)
})

test('palette: the image and the logo get their colours', async () => {
  const res = await call(article, { palette: true })
  eq(res.status, 'success', 'status')
  for (const name of ['image', 'logo']) {
    const a = res.data[name]
    check(Array.isArray(a?.palette) && a.palette.length > 0 && a.palette.every(c => hex.test(c)), `data.${name}.palette is ${show(a?.palette)}`)
    check([a.background_color, a.color, a.alternative_color].every(c => hex.test(c)), `data.${name} colours are ${show(a)}`)
    eq(a.background_color, a.palette[0], `data.${name}.background_color`)
  }
})

test('iframe: the oEmbed with maxWidth, beside meta=false', async () => {
  const res = await call(`${pages}/embed`, { iframe: { maxWidth: 350 }, meta: false })
  eq(res.status, 'success', 'status')
  check(res.data.iframe?.html?.includes('width="350"'), `data.iframe is ${show(res.data.iframe)}`)
  eq(res.data.iframe.scripts, [{ src: 'https://player.example/embed.js', async: true }], 'data.iframe.scripts')
  eq(res.response.headers.get('x-glimpse-ignored'), null, 'x-glimpse-ignored')
})

test('insights.technologies: what the page is built with', async () => {
  const res = await call(`${pages}/built`, { insights: { technologies: true }, meta: false })
  eq(res.status, 'success', 'status')
  const names = (res.data.insights?.technologies ?? []).map(t => t.name)
  check(names.includes('WordPress') && names.includes('PHP'), `data.insights.technologies are ${show(names)}`)
  const wp = res.data.insights.technologies.find(t => t.name === 'WordPress')
  eq([wp.version, wp.confidence, wp.categories.includes('CMS')], ['6.4.2', 100, true], 'WordPress version, confidence, CMS')
})

test("data: attr 'json' reads a JSON endpoint, as Microlink's guide does", async () => {
  const res = await call(`${pages}/api.json`, { data: { json: { attr: 'json' } }, meta: false, prerender: false })
  eq(res.status, 'success', 'status')
  eq(res.data.json, { name: 'pikachu', id: 25, types: [{ slot: 1, type: { name: 'electric' } }] }, 'data.json')
})

// --------------------------------------------------------------------------
// Data rules with every Microlink type

const rules = `${pages}/rules`
const rule = async (data, extra = {}) => {
  const res = await call(rules, { data, meta: false, ...extra })
  eq(res.status, 'success', 'status')
  return res.data
}

test("data: type 'title', the mql README's Hacker News example", async () => {
  const d = await rule({ headline: { selector: 'h1', type: 'title' } })
  eq(d.headline, 'Rules Headline', 'data.headline')
})

test("data: metadata types 'author', 'description', 'lang', 'publisher', 'date'", async () => {
  const d = await rule({
    who: { selector: '.byline', attr: 'text', type: 'author' },
    what: { selector: '.intro', attr: 'text', type: 'description' },
    tongue: { selector: 'html', attr: 'lang', type: 'lang' },
    house: { selector: 'meta[property="og:site_name"]', attr: 'content', type: 'publisher' },
    when: { selector: 'time', attr: 'datetime', type: 'date' }
  })
  eq(d.who, 'Grace Hopper', 'data.who')
  eq(d.what, 'Hello world', 'data.what')
  eq(d.tongue, 'en', 'data.tongue')
  eq(d.house, 'Rule House', 'data.house')
  eq(d.when, '2025-05-06T07:08:09.000Z', 'data.when')
})

test('data: a rule without type is auto, attr defaults to html', async () => {
  const d = await rule({ intro: { selector: '.intro' } })
  eq(d.intro, 'Hello <b>world</b>', 'data.intro')
})

test("data: attr 'markdown'", async () => {
  const d = await rule({ intro: { selector: 'p.intro', attr: 'markdown' } })
  eq(d.intro, 'Hello **world**', 'data.intro')
})

test("data: attr 'outerHTML'", async () => {
  const d = await rule({ intro: { selector: '.intro', attr: 'outerHTML' } })
  eq(d.intro, '<p class="intro">Hello <b>world</b></p>', 'data.intro')
})

test("data: type 'image' and 'logo' are asset objects", async () => {
  const d = await rule({
    hero: { selector: 'img.hero', attr: 'src', type: 'image' },
    mark: { selector: 'link[rel="icon"]', attr: 'href', type: 'logo' }
  })
  check(d.hero?.url === `${pages}/img.png`, `data.hero is ${show(d.hero)}`)
  eq([d.hero.type, d.hero.width, d.hero.height], ['png', 120, 63], 'data.hero type, width, height')
  check(d.mark?.url === `${pages}/logo.png`, `data.mark is ${show(d.mark)}`)
  eq(d.mark.type, 'png', 'data.mark.type')
})

test("data: type 'video' and 'audio' are asset objects", async () => {
  const d = await rule({
    clip: { selector: 'video', attr: 'src', type: 'video' },
    sound: { selector: 'audio', attr: 'src', type: 'audio' }
  })
  check(d.clip?.url === `${pages}/clip.mp4`, `data.clip is ${show(d.clip)}`)
  eq(d.clip.type, 'mp4', 'data.clip.type')
  check(d.sound?.url === `${pages}/sound.mp3`, `data.sound is ${show(d.sound)}`)
  eq(d.sound.type, 'mp3', 'data.sound.type')
})

test("data: type 'email'", async () => {
  const d = await rule({ contact: { selector: 'a.mail', attr: 'href', type: 'email' } })
  eq(d.contact, 'ada@example.com', 'data.contact')
})

test("data: type 'object' with nested rules", async () => {
  const d = await rule({
    card: { selector: '.card', type: 'object', attr: { name: { selector: 'h2', attr: 'text' }, role: { selector: '.role', attr: 'text' } } }
  })
  eq(d.card, { name: 'Ada', role: 'Engineer' }, 'data.card')
})

test('data: attr as an array of fallbacks', async () => {
  const d = await rule({ tweet: { selector: 'meta[name="twitter:title"]', attr: ['data-missing', 'content'] } })
  eq(d.tweet, 'Tweet Title', 'data.tweet')
})

test('data: selector as an array of fallbacks', async () => {
  const d = await rule({ heading: { selector: ['.nothing-here', 'h1'], attr: 'text' } })
  eq(d.heading, 'Rules Headline', 'data.heading')
})

test('data: a rule without selector reads the page by its type', async () => {
  // The page's own title field: its twitter:title outranks <title>, as in data.title.
  const res = await call(rules, { data: { pageTitle: { type: 'title' } }, meta: { title: true } })
  eq(res.status, 'success', 'status')
  eq(res.data.pageTitle, res.data.title, 'data.pageTitle')
  eq(res.data.pageTitle, 'Tweet Title', 'data.pageTitle')
})

test('data: evaluate runs an expression in the page', async () => {
  // An isolated world of the page: its DOM, not its script's globals.
  const d = await rule({
    answer: { evaluate: 'document.querySelectorAll("h1").length * 42', type: 'number' },
    fn: { evaluate: '() => document.querySelector("h1").textContent.toUpperCase()' },
    hidden: { evaluate: 'typeof window.answer' }
  })
  eq(d.answer, 42, 'data.answer')
  eq(d.fn, 'RULES HEADLINE', 'data.fn')
  eq(d.hidden, 'undefined', 'data.hidden')
})

// --------------------------------------------------------------------------
// Targets that are not HTML pages, and failures not worth a retry

test('a PDF target answers success with its url, status, headers and title', async () => {
  const target = `${pages}/files/annual-report.pdf`
  const res = await call(target)
  eq(res.status, 'success', 'status')
  eq(res.statusCode, 200, 'statusCode')
  eq(res.data.url, target, 'data.url')
  check(res.headers?.['content-type']?.startsWith('application/pdf'), `headers['content-type'] is ${show(res.headers?.['content-type'])}`)
  check(typeof res.data.title === 'string' && res.data.title.includes('annual-report'), `data.title ${show(res.data.title)} is not from the filename`)
})

test('a Word document target answers its content as Markdown and its own properties', async () => {
  const target = `${pages}/files/report.docx`
  const res = await call(target, { data: { content: { attr: 'markdown' } } })
  eq(res.status, 'success', 'status')
  eq([res.data.title, res.data.author, res.data.lang], ['Quarterly Report', 'Ada Lovelace', 'en'], 'data.title, author, lang')
  const md = res.data.content ?? ''
  for (const part of ['# Quarterly Report', '[the figures](https://example.org/figures)', '| Region | Revenue |']) {
    check(md.includes(part), `data.content lacks ${show(part)}: ${show(md)}`)
  }
})

test('an image target answers success with the image as an asset object', async () => {
  const target = `${pages}/img.png`
  const res = await call(target)
  eq(res.status, 'success', 'status')
  eq(res.data.url, target, 'data.url')
  check(res.data.image?.url === target, `data.image is ${show(res.data.image)}`)
  eq([res.data.image.type, res.data.image.width, res.data.image.height], ['png', 120, 63], 'data.image type, width, height')
})

test('an octet-stream target answers success', async () => {
  const target = `${pages}/files/blob.bin`
  const res = await call(target)
  eq(res.status, 'success', 'status')
  eq(res.statusCode, 200, 'statusCode')
  eq(res.data.url, target, 'data.url')
})

test('a target that refuses connections fails with a status mql does not retry', async () => {
  const err = await failure(call(process.env.GLIMPSE_CLOSED_URL, { force: true }))
  check(err.code !== 'EFORBIDDENURL', `an allowed address whose port is closed is refused as forbidden: ${err.description}`)
  check(err.statusCode >= 400 && !RETRIED.includes(err.statusCode), `statusCode ${err.statusCode} is one mql retries (${err.code})`)
  eq(err.attempts, 1, 'mql attempts')
  return `${err.code} ${err.statusCode}: ${err.description}`
})

// --------------------------------------------------------------------------

const only = process.env.GLIMPSE_CASES ? new RegExp(process.env.GLIMPSE_CASES) : null
const todo = cases.filter(c => !only || only.test(c.name))
const emit = line => process.stdout.write(JSON.stringify(line) + '\n')

// A few at a time: glimpse renders several pages at once, and the whole run
// has to stay short.
let next = 0
const worker = async () => {
  while (next < todo.length) {
    const c = todo[next++]
    const started = Date.now()
    try {
      const note = await c.fn()
      emit({ name: c.name, ok: true, detail: note ?? '', ms: Date.now() - started })
    } catch (err) {
      const detail = err instanceof Failure
        ? err.message
        : `${err?.name}: ${err?.message}${err?.code ? ` (code ${err.code}, statusCode ${err.statusCode})` : ''}`
      emit({ name: c.name, ok: false, detail, ms: Date.now() - started })
    }
  }
}
await Promise.all([worker(), worker(), worker()])
emit({ done: todo.length })
