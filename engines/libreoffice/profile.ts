// A private LibreOffice user profile that refuses remote and linked content and never runs macros.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Settings written into the profile before LibreOffice first starts:
 * - BlockUntrustedRefererLinks: linked pictures and other links of a document outside the trusted
 *   locations (there are none) are not loaded, so an `r:link`/`xlink:href` to http(s) or file:// is
 *   neither fetched nor embedded.
 * - MacroSecurityLevel 3 (very high) with no trusted locations: no macro ever runs.
 * - Writer link update mode 2 (never): fields and sections linked to other files are not refreshed.
 */
const REGISTRY = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Writer/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>2</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Content/Update"><prop oor:name="Link" oor:op="fuse"><value>2</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="FirstRun" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
`;

/** Creates the profile in `dir` and returns the `-env:UserInstallation=` URL for it. */
export async function writeProfile(dir: string): Promise<string> {
  await mkdir(path.join(dir, 'user'), { recursive: true });
  await writeFile(path.join(dir, 'user', 'registrymodifications.xcu'), REGISTRY);
  return pathToFileURL(dir).href;
}
