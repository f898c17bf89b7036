// The uniques' icons on the home page. Each is fetched with the home token
// in a header and shown from an object URL: the token never goes in an
// address, where it would stay in the browser's history (issue #23). An
// icon is fetched once per unique and version; the object URL is revoked
// when it is replaced or its unique is gone.

interface Entry {
  key: string;
  url: Promise<string | null>;
}

function revoke(e: Entry): void {
  void e.url.then((u) => {
    if (u) URL.revokeObjectURL(u);
  });
}

export class Icons {
  private readonly entries = new Map<string, Entry>();

  /** load fetches one unique's icon (with the token in a header). */
  constructor(private readonly load: (name: string) => Promise<Blob>) {}

  /**
   * A 48×48 image of name's icon, drawn once it has loaded. key changes
   * when the icon may have (another version or source). When the icon
   * cannot be loaded, the image is replaced by fallback().
   */
  img(name: string, key: string, fallback: () => HTMLElement): HTMLImageElement {
    const img = Object.assign(document.createElement("img"), { alt: "", width: 48, height: 48 });
    img.setAttribute("aria-hidden", "true");
    void this.url(name, key).then((url) => {
      if (url) {
        img.src = url;
        return;
      }
      const other = fallback();
      other.setAttribute("aria-hidden", "true");
      img.replaceWith(other);
    });
    return img;
  }

  /** Forgets (and revokes) the icons of uniques not in names. */
  keepOnly(names: Iterable<string>): void {
    const keep = new Set(names);
    for (const [name, e] of this.entries) {
      if (keep.has(name)) continue;
      this.entries.delete(name);
      revoke(e);
    }
  }

  private url(name: string, key: string): Promise<string | null> {
    const have = this.entries.get(name);
    if (have && have.key === key) return have.url;
    if (have) revoke(have);
    const entry: Entry = { key, url: Promise.resolve(null) };
    entry.url = this.load(name).then(
      (blob) => URL.createObjectURL(blob),
      () => {
        // Not kept: the next refresh tries again.
        if (this.entries.get(name) === entry) this.entries.delete(name);
        return null;
      },
    );
    this.entries.set(name, entry);
    return entry.url;
  }
}
